/**
 * The Linux sandbox: bubblewrap (`bwrap`, Debian's `bubblewrap`), one sandbox per command
 * (docs/decisions/processes.md, 113).
 *
 * - The whole file system is mounted read-only; `/dev` and `/proc` are the sandbox's own; `/tmp` is
 *   a private tmpfs that ends with the command.
 * - `workspace-write`: the working directory, the result store and the configured `writable` paths
 *   are bound writable on top, and in each of them the protected names that exist (`.git`, `.claude`,
 *   …) and the protected paths are bound read-only again. `read-only`: they are bound read-only (so
 *   one under /tmp stays visible).
 * - A PID namespace whose init is killed with bwrap (`--die-with-parent`): every process the command
 *   starts, a `setsid` daemon or a double fork too, dies when it ends.
 * - `network: 'off'`: a network namespace of its own, with only a loopback nobody else is on.
 * - No capabilities (`--cap-drop ALL`), even when the app runs as root.
 * - The environment is what the caller gives the spawn (the allowlist, child-environment.ts):
 *   bwrap passes it through unchanged.
 *
 * No `--new-session`: the spawner already starts each command in a session of its own without a
 * controlling terminal (so TIOCSTI has no terminal to push into), and keeping bwrap and the command
 * in one process group keeps the spawner's kill policy whole (spawn-process.ts).
 */
import { checkOptionsObject, optionNames } from '../util/known-options.js'
import { accessSync, constants, existsSync, realpathSync } from 'node:fs'
import { delimiter, isAbsolute, join, sep } from 'node:path'
import type { Sandbox, SandboxPolicy, SandboxProvider, SandboxScope } from '../ports/sandbox.port.js'
import { createDomainProxy, FORWARDER, SANDBOX_PROXY_PORT, type DomainProxy } from './domain-proxy.js'
import { builtin } from '../util/builtin.js'

/** How the bubblewrap adapter finds its program. */
export interface BubblewrapOptions {
  /** The bwrap program: a name looked up on PATH, or a path. Default `bwrap`. */
  readonly program?: string
  /** Where PATH is read from when looking the program up (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv
}

const BUBBLEWRAP_OPTIONS = optionNames<BubblewrapOptions>()('program', 'env')

/** How long the one check of the machine may take before it counts as refused. */
const CHECK_TIMEOUT_MS = 15_000

const OFF_HINT = "or configure sandbox: { mode: 'off' } to run commands without a sandbox"

/**
 * The bubblewrap sandbox provider: every sandbox it creates shares one check of the machine, run on
 * first use and cached.
 *
 * @example
 * const policy = { mode: 'workspace-write', network: 'off', writable: [] } as const
 * createProcessRunner({ sandbox: createBubblewrap().create(policy, { protectedNames: ['.git'], protectedDirs: [] }) })
 */
export function createBubblewrap(options: BubblewrapOptions = {}): SandboxProvider {
  checkOptionsObject('createBubblewrap', options, BUBBLEWRAP_OPTIONS)
  const program = options.program ?? 'bwrap'
  let resolved: string | undefined
  let checked: Promise<string | undefined> | undefined
  const check = (): Promise<string | undefined> =>
    (checked ??= probe(program, options.env ?? process.env).then((answer) => {
      if (answer.path !== undefined) resolved = answer.path
      return answer.problem
    }))
  return {
    name: 'bubblewrap',
    create(policy, scope) {
      if (policy.mode === 'off') return unsandboxed(policy)
      const network = policy.network
      if (typeof network === 'object') return proxied(policy, scope, network.allowDomains)
      return {
        policy,
        check,
        wrap: (command, cwd) => ({
          file: resolved ?? program,
          args: [...bubblewrapArgs(policy, scope, cwd), '--', command.file, ...command.args],
        }),
      }
    },
  }

  /**
   * `network: { allowDomains }`: the proxy starts with the sandbox's check (once), its socket's
   * directory is bound in, and the command runs under the forwarder (docs/decisions/processes.md, 157).
   */
  function proxied(policy: SandboxPolicy, scope: SandboxScope, domains: readonly string[]): Sandbox {
    let proxy: DomainProxy | undefined
    let ready: Promise<string | undefined> | undefined
    const started = (): Promise<string | undefined> =>
      (ready ??= check().then(async (problem) => {
        if (problem !== undefined) return problem
        try {
          proxy = createDomainProxy(domains)
          await proxy.start()
          return undefined
        } catch (error) {
          return `the sandbox's network proxy could not start (${error instanceof Error ? error.message : String(error)})`
        }
      }))
    return {
      policy,
      check: started,
      // kernel.close(): the proxy stops listening and its directory goes; a later command starts another.
      async close() {
        const running = proxy
        proxy = undefined
        ready = undefined
        await running?.close()
      },
      wrap(command, cwd) {
        // check() has passed before any wrap (the runners await it), so the proxy is there.
        const dir = proxy?.dir ?? '/nonexistent/toolkernel-proxy'
        const socket = proxy?.socket ?? `${dir}/proxy.sock`
        return {
          file: resolved ?? program,
          args: [
            ...bubblewrapArgs(policy, scope, cwd, ['--ro-bind', dir, dir]),
            '--',
            process.execPath,
            '-e',
            FORWARDER,
            socket,
            String(SANDBOX_PROXY_PORT),
            command.file,
            ...command.args,
          ],
        }
      },
    }
  }
}

/** Mode `off`: commands run as they are, and nothing needs checking. */
export function unsandboxed(policy: SandboxPolicy): Sandbox {
  return { policy, check: () => Promise.resolve(undefined), wrap: (command) => command }
}

/** bwrap's options for one command in `cwd` (before `--` and the command). */
export function bubblewrapArgs(
  policy: SandboxPolicy,
  scope: SandboxScope,
  cwd: string,
  extra: readonly string[] = [],
): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', ...extra]
  const roots = visibleRoots(policy, scope, cwd)
  const write = policy.mode === 'workspace-write'
  for (const root of roots) args.push(write ? '--bind' : '--ro-bind', root, root)
  if (write) for (const path of protectedIn(roots, scope)) args.push('--ro-bind', path, path)
  // Run as root, bwrap keeps every capability unless told otherwise: the command could remount the
  // read-only root writable (a test row did). Dropped always; for other users it is bwrap's default.
  args.push('--cap-drop', 'ALL', '--unshare-pid', '--unshare-ipc', '--die-with-parent')
  // 'off', and { allowDomains } too: the only way out is then the proxy's socket, bound in above.
  if (policy.network !== 'on') args.push('--unshare-net')
  args.push('--chdir', cwd)
  return args
}

/**
 * The directories bound over the read-only root, parents before what they contain (a later bind
 * wins), each by its real path: bwrap follows links in a bind's source, and a path given through a
 * link would otherwise be bound at the link's place, not the directory's.
 */
function visibleRoots(policy: SandboxPolicy, scope: SandboxScope, cwd: string): string[] {
  const wanted = [cwd, ...(scope.resultsDir === undefined ? [] : [scope.resultsDir]), ...policy.writable]
  const roots = new Set<string>()
  for (const path of wanted) {
    const real = realPath(path)
    // One that does not exist (yet: the result store is made on first save) has nothing to bind.
    if (real !== undefined) roots.add(real)
  }
  return [...roots].sort((a, b) => a.length - b.length)
}

/** The protected names and paths that exist inside a writable root, by real path. */
function protectedIn(roots: readonly string[], scope: SandboxScope): string[] {
  const found = new Set<string>()
  const inside = (path: string) =>
    roots.some((root) => path === root || path.startsWith(root === '/' ? '/' : root + sep))
  for (const root of roots)
    for (const name of scope.protectedNames) {
      const real = realPath(join(root, name))
      if (real !== undefined && inside(real)) found.add(real)
    }
  for (const dir of scope.protectedDirs) {
    const real = realPath(dir)
    if (real !== undefined && inside(real)) found.add(real)
  }
  return [...found].sort((a, b) => a.length - b.length)
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

interface ProbeAnswer {
  path?: string
  problem?: string
}

/** Finds the program and runs it once with the namespaces every command will need. */
async function probe(program: string, env: NodeJS.ProcessEnv): Promise<ProbeAnswer> {
  const path = findProgram(program, env.PATH ?? '')
  if (path === undefined)
    return {
      problem: `the sandbox needs bubblewrap (bwrap), which was not found ${program.includes('/') ? `at ${program}` : 'on PATH'}: install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap), ${OFF_HINT}`,
    }
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net']
  const failure = await new Promise<string | undefined>((done) => {
    builtin('node:child_process').execFile(
      path,
      [...args, '--die-with-parent', '--', 'true'],
      { timeout: CHECK_TIMEOUT_MS },
      (error, _out, stderr) => done(error === null ? undefined : firstLine(String(stderr)) || exitText(error)),
    )
  })
  if (failure === undefined) return { path }
  return {
    path,
    problem: `bubblewrap (${path}) could not create a sandbox on this machine (${failure}): enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 23.10 and later kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile allowing bwrap; in a container, allow user namespaces), ${OFF_HINT}`,
  }
}

function exitText(error: Error & { code?: unknown; signal?: unknown }): string {
  if (typeof error.code === 'number') return `it exited with code ${error.code}`
  if (typeof error.signal === 'string') return `it was killed by ${error.signal}`
  return error.message
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? ''
}

/** The program's absolute path: as given when it names a path, else the first executable on PATH. */
function findProgram(program: string, path: string): string | undefined {
  const candidates = program.includes('/')
    ? [program]
    : path
        .split(delimiter)
        .filter((dir) => isAbsolute(dir))
        .map((dir) => join(dir, program))
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK)
      return existsSync(candidate)
    } catch {
      return false
    }
  })
}
