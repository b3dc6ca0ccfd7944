/**
 * Fixtures and runners for the permission-bypass suite (attacks.cases.ts, attacks.test.ts).
 *
 * Every case gets its own temp directory; a few also get a second temp directory standing for
 * "outside the working directory". Nothing here writes anywhere else.
 */
import { spawn, spawnSync } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, isAbsolute, join, resolve } from 'node:path'
import { builtinTools, createKernel, type PermissionMode, type ToolResultBlock } from '../../src/index.js'

/** Named pieces of a case's temp directory. Every directory also gets `foo` ("foo\n"). */
export type Fixture =
  /** `V`, the file a deny-rule attack tries to delete. */
  | 'victim'
  /** `./mk`: creates `X` and passes its input through (a preprocessor, a compressor, a diff tool). */
  | 'mk'
  /** `big`, 300,000 lines: enough to make `sort -S 1` use temp files, hence its compress program. */
  | 'big'
  /** A git repository with `foo` committed. */
  | 'git'
  /** After `git`: `foo` changed in the work tree, so `git diff` has something to show. */
  | 'dirty'
  /** `./ls`, an executable that creates `X`: a PATH hijack target. */
  | 'fake-ls'
  /** `magic`, an empty magic(5) source for `file -C`. */
  | 'magic'
  /**
   * An outside directory with `target.txt`; inside: `link` -> outside, `chain` -> link, `up` -> ..,
   * `filelink` -> outside/target.txt.
   */
  | 'outside'
  /** `secret/key.txt` holding SECRET_TOKEN, `public/readme.txt`, and `alias` -> secret. */
  | 'secret'
  /** After `git`: `gitlink` -> .git. */
  | 'gitlink'
  /** `sub/.git/`, a nested repository's git directory. */
  | 'nested-git'
  /** `NOTES` -> /proc/self/environ and `me` -> /proc/self, as a cloned repository could hold them. */
  | 'proc-links'

export const SECRET_TOKEN = 'TK_SECRET_7f3a9c'
export const SECRET_FILE = 'key.txt'
/** Set in this process's environment, so a command that dumps the environment shows it. */
export const ENV_CANARY = 'tk-env-canary-51d0e2'
process.env.TK_ATTACK_CANARY = ENV_CANARY

/** Same as the kernel's process runner gives commands, so a control run behaves like the kernel's. */
const COMMAND_ENV = { ...process.env, TERM: 'dumb', PAGER: 'cat', GIT_PAGER: 'cat' }

export interface Sandbox {
  dir: string
  /** The outside directory ('' when the case has no `outside` fixture). */
  outside: string
  /** Replaces {dir}, {outside} and {outsideName}; a relative result is taken relative to dir. */
  path(template: string): string
  fill<T>(value: T): T
}

const made: string[] = []

/** Removes every directory made so far (afterAll). */
export function removeSandboxes(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}

export async function makeSandbox(fixtures: readonly Fixture[] = []): Promise<Sandbox> {
  const dir = mkdtempSync(join(tmpdir(), 'tk-attack-'))
  made.push(dir)
  const outside = fixtures.includes('outside') ? mkdtempSync(join(tmpdir(), 'tk-attack-outside-')) : ''
  if (outside !== '') made.push(outside)
  const fill = (text: string): string =>
    text.replaceAll('{dir}', dir).replaceAll('{outsideName}', basename(outside)).replaceAll('{outside}', outside)
  const sandbox: Sandbox = {
    dir,
    outside,
    path: (template) => {
      const filled = fill(template)
      return isAbsolute(filled) ? filled : resolve(dir, filled)
    },
    fill: <T>(value: T): T => JSON.parse(fill(JSON.stringify(value))) as T,
  }
  writeFileSync(join(dir, 'foo'), 'foo\n')
  for (const fixture of fixtures) await FIXTURES[fixture](sandbox)
  return sandbox
}

const executable = (path: string, text: string) => writeFileSync(path, text, { mode: 0o755 })
const TOUCH = ['/usr/bin/touch', '/bin/touch'].find((p) => existsSync(p)) ?? 'touch'

const FIXTURES: Record<Fixture, (s: Sandbox) => Promise<void> | void> = {
  victim: ({ dir }) => writeFileSync(join(dir, 'V'), 'victim\n'),
  mk: ({ dir }) =>
    executable(
      join(dir, 'mk'),
      `#!/bin/sh\n${TOUCH} X\nif [ -n "$1" ] && [ "$1" != -d ] && [ -f "$1" ]; then exec cat -- "$1"; fi\nexec cat\n`,
    ),
  big: ({ dir }) =>
    writeFileSync(join(dir, 'big'), Array.from({ length: 300_000 }, (_, i) => String(300_000 - i)).join('\n') + '\n'),
  git: async ({ dir }) => {
    await git(dir, 'init', '-q', '.')
    await git(dir, 'add', 'foo')
    await git(
      dir,
      '-c',
      'user.email=attack@example.com',
      '-c',
      'user.name=attack',
      '-c',
      'commit.gpgsign=false',
      'commit',
      '-qm',
      'init',
    )
  },
  dirty: ({ dir }) => writeFileSync(join(dir, 'foo'), 'foo\nchanged\n'),
  'fake-ls': ({ dir }) => executable(join(dir, 'ls'), `#!/bin/sh\nexec ${TOUCH} X\n`),
  magic: ({ dir }) => writeFileSync(join(dir, 'magic'), ''),
  outside: ({ dir, outside }) => {
    writeFileSync(join(outside, 'target.txt'), 'original\n')
    symlinkSync(outside, join(dir, 'link'))
    symlinkSync('link', join(dir, 'chain'))
    symlinkSync('..', join(dir, 'up'))
    symlinkSync(join(outside, 'target.txt'), join(dir, 'filelink'))
  },
  secret: ({ dir }) => {
    mkdirSync(join(dir, 'secret'))
    mkdirSync(join(dir, 'public'))
    writeFileSync(join(dir, 'secret', SECRET_FILE), `api_key = ${SECRET_TOKEN}\n`)
    writeFileSync(join(dir, 'public', 'readme.txt'), 'nothing to see here\n')
    symlinkSync('secret', join(dir, 'alias'))
  },
  gitlink: ({ dir }) => symlinkSync('.git', join(dir, 'gitlink')),
  'proc-links': ({ dir }) => {
    symlinkSync('/proc/self/environ', join(dir, 'NOTES'))
    symlinkSync('/proc/self', join(dir, 'me'))
  },
  'nested-git': ({ dir }) => {
    mkdirSync(join(dir, 'sub', '.git', 'hooks'), { recursive: true })
    writeFileSync(join(dir, 'sub', '.git', 'config'), '[core]\n\tbare = false\n')
  },
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  const result = await runProcess('git', args, cwd, 10_000)
  if (result.code !== 0) throw new Error(`fixture: git ${args.join(' ')} failed: ${result.output}`)
}

/** Programs some rows use; on a machine without one, those rows skip with a message instead of failing. */
const PROGRAMS = ['git', 'rg', 'xxd', 'jq', 'file', 'watch', 'ionice', 'stdbuf'] as const
const found = new Map<string, boolean>()
const onPath = (program: string): boolean => {
  let known = found.get(program)
  if (known === undefined) {
    known = spawnSync('bash', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0
    found.set(program, known)
  }
  return known
}

/** The programs a case needs that this machine lacks: its fixtures' (git) and, for a control run, its command's. */
export function missingPrograms(fixtures: readonly Fixture[] = [], command?: string): string[] {
  const needed = new Set<string>()
  if (fixtures.includes('git') || fixtures.includes('gitlink')) needed.add('git')
  if (command !== undefined) for (const p of PROGRAMS) if (new RegExp(`(^|[^\\w-])${p}\\b`).test(command)) needed.add(p)
  return [...needed].filter((p) => !onPath(p))
}

/** Whether something (a file, a directory, a dangling link) is at the path. */
export function present(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

export function contentOf(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

export interface CallSpec {
  tool: string
  input: unknown
}

export interface KernelRun {
  block: ToolResultBlock
  text: string
}

/** Runs `before` (one turn each, results ignored) and then `call` through a real kernel in the sandbox. */
export async function runThroughKernel(
  sandbox: Sandbox,
  permissions: { mode: PermissionMode; allow?: readonly string[]; ask?: readonly string[]; deny?: readonly string[] },
  call: CallSpec,
  before: readonly CallSpec[] = [],
): Promise<KernelRun> {
  // An ask nobody answers is denied here (approvals: 'deny'), so a row reads its denial; parked,
  // the call would not run either (test/approvals checks that nothing runs before its approval).
  const kernel = createKernel({ tools: builtinTools, cwd: sandbox.dir, permissions, approvals: 'deny' })
  let n = 0
  const turn = async (spec: CallSpec): Promise<ToolResultBlock> => {
    const id = `toolu_attack_${++n}`
    const { message } = await kernel.runTurn({
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: spec.tool, input: sandbox.fill(spec.input) }],
      stop_reason: 'tool_use',
    })
    const block = message.content[0]
    if (block === undefined) throw new Error(`no tool_result for ${spec.tool}`)
    return block
  }
  for (const spec of before) await turn(spec)
  const block = await turn(call)
  return { block, text: typeof block.content === 'string' ? block.content : JSON.stringify(block.content) }
}

/** Runs a command with bash directly (no kernel), as the kernel runs it: own process group, killed when done. */
export async function runBashDirectly(command: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return runProcess('bash', ['-c', `exec 2>&1\n${command}`], cwd, 5000)
}

function runProcess(
  file: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(file, args, { cwd, env: COMMAND_ENV, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    const chunks: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk))
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    const timer = setTimeout(kill, timeoutMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      done({ code: null, output: String(error) })
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      kill()
      done({ code, output: Buffer.concat(chunks).toString('utf8') })
    })
  })
}
