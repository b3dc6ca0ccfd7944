/**
 * `createKernel({ sandbox })`: the options checked once (what cannot work throws at createKernel),
 * and the sandboxes built from them — the kernel's, and each tool's override
 * (docs/decisions/processes.md, 113; docs/sandbox.md).
 */
import { createBubblewrap, unsandboxed } from './adapters/bubblewrap.sandbox.js'
import type {
  Sandbox,
  SandboxMode,
  SandboxNetwork,
  SandboxPolicy,
  SandboxProvider,
  SandboxScope,
  ToolSandboxes,
} from './ports/sandbox.port.js'
import { isAbsolute } from 'node:path'
import { allowDomainProblem } from './adapters/domain-proxy.js'
import type { RuleSet, SandboxedCalls } from './permissions/ruleset.js'

export const SANDBOX_MODES: readonly SandboxMode[] = ['read-only', 'workspace-write', 'off']

/** One sandbox's settings as an app writes them. */
export interface SandboxSettings {
  /**
   * `read-only`: nothing is writable; `workspace-write`: the working directory, the result store and
   * `writable`; `off`: no sandbox.
   */
  mode?: SandboxMode
  /**
   * Default `'off'`: the command has no network at all. `'on'`: all of it. `{ allowDomains }`: only
   * those domains (`example.com`, `*.example.com` for its subdomains), through a proxy outside the
   * sandbox (HTTP and HTTPS, for programs that honour HTTP_PROXY / HTTPS_PROXY / ALL_PROXY).
   */
  network?: SandboxNetwork
  /** More absolute paths writable in `workspace-write` (they must exist when a command runs). */
  writable?: readonly string[]
}

/**
 * The OS sandbox Bash and command hooks run in. Tools may override it by name.
 *
 * @example
 * createKernel({ tools, sandbox: { mode: 'workspace-write', tools: { Bash: { network: 'on' } } } })
 */
export interface SandboxOptions extends SandboxSettings {
  mode: SandboxMode
  /** Per tool (by name): settings that replace the kernel's for the processes that tool runs. */
  tools?: Readonly<Record<string, SandboxSettings>>
}

/** The sandbox configuration, checked: what session.configured records. */
export interface SandboxConfig extends SandboxPolicy {
  tools?: Record<string, SandboxPolicy>
}

/** Checks `createKernel`'s `sandbox` option; undefined when it was not given. */
export function checkSandboxOptions(options: SandboxOptions | undefined): SandboxConfig | undefined {
  if (options === undefined) return undefined
  if (options === null || typeof options !== 'object')
    throw new TypeError(`createKernel: sandbox must be an object such as { mode: 'workspace-write' }`)
  if (options.mode === undefined)
    throw new TypeError(`createKernel: sandbox.mode is required (one of ${SANDBOX_MODES.join(', ')})`)
  const base = policyOf(options, undefined, 'sandbox')
  const tools = options.tools
  if (tools === undefined) return base
  if (tools === null || typeof tools !== 'object' || Array.isArray(tools))
    throw new TypeError('createKernel: sandbox.tools must map tool names to sandbox settings')
  const own: Record<string, SandboxPolicy> = {}
  for (const [name, settings] of Object.entries(tools)) own[name] = policyOf(settings, base, `sandbox.tools.${name}`)
  return { ...base, tools: own }
}

function policyOf(settings: SandboxSettings, base: SandboxPolicy | undefined, where: string): SandboxPolicy {
  if (settings === null || typeof settings !== 'object') throw new TypeError(`createKernel: ${where} must be an object`)
  const mode = settings.mode ?? base?.mode ?? 'off'
  if (!SANDBOX_MODES.includes(mode))
    throw new Error(
      `createKernel: ${where}.mode must be one of ${SANDBOX_MODES.join(', ')}, got ${JSON.stringify(mode)}`,
    )
  const network = networkOf(settings.network ?? base?.network ?? 'off', where)
  const writable = settings.writable ?? base?.writable ?? []
  if (!Array.isArray(writable) || writable.some((path) => typeof path !== 'string' || !isAbsolute(path)))
    throw new Error(`createKernel: ${where}.writable must be a list of absolute paths, got ${JSON.stringify(writable)}`)
  return { mode, network, writable: [...writable] }
}

function networkOf(network: unknown, where: string): SandboxNetwork {
  if (network === 'off' || network === 'on') return network
  if (typeof network !== 'object' || network === null || !('allowDomains' in network))
    throw new Error(
      `createKernel: ${where}.network must be 'off', 'on' or { allowDomains: [...] }, got ${JSON.stringify(network)}`,
    )
  const domains = (network as { allowDomains: unknown }).allowDomains
  if (!Array.isArray(domains) || domains.length === 0)
    throw new Error(
      `createKernel: ${where}.network.allowDomains must be a non-empty list of domains (e.g. ['registry.npmjs.org', '*.github.com']); for no network write network: 'off'`,
    )
  for (const entry of domains) {
    const problem = allowDomainProblem(entry)
    if (problem !== undefined) throw new Error(`createKernel: ${where}.network.allowDomains: ${problem}`)
  }
  return { allowDomains: [...(domains as string[])] }
}

/** The sandbox option as session.configured recorded it (network 'allowDomains' with its list), for a replay. */
export function sandboxOptionsOf(recorded: {
  mode: string
  network: string
  writable: string[]
  allowDomains?: string[] | undefined
  tools?:
    | Record<string, { mode: string; network: string; writable: string[]; allowDomains?: string[] | undefined }>
    | undefined
}): SandboxOptions {
  const settings = (r: { mode: string; network: string; writable: string[]; allowDomains?: string[] | undefined }) => ({
    mode: r.mode as SandboxMode,
    network: r.network === 'allowDomains' ? { allowDomains: r.allowDomains ?? [] } : (r.network as SandboxNetwork),
    writable: r.writable,
  })
  const tools = recorded.tools
  return {
    ...settings(recorded),
    ...(tools !== undefined && {
      tools: Object.fromEntries(Object.entries(tools).map(([name, r]) => [name, settings(r)])),
    }),
  }
}

/** The sandboxes of one kernel: its own (for every process it starts) and each tool's. */
export interface KernelSandboxes {
  readonly kernel: Sandbox
  readonly tools: ToolSandboxes
}

/** Builds the configured sandboxes with `provider` (default: bubblewrap, checked once for them all). */
export function buildSandboxes(
  config: SandboxConfig | undefined,
  scope: SandboxScope,
  provider: SandboxProvider = createBubblewrap(),
): KernelSandboxes | undefined {
  if (config === undefined) return undefined
  const make = (policy: SandboxPolicy): Sandbox =>
    policy.mode === 'off' ? unsandboxed(policy) : provider.create(policy, scope)
  const kernel = make({ mode: config.mode, network: config.network, writable: config.writable })
  const own = new Map(Object.entries(config.tools ?? {}).map(([name, policy]) => [name, make(policy)]))
  const close = async (): Promise<void> => {
    await Promise.all([kernel, ...own.values()].map((sandbox) => sandbox.close?.()))
  }
  return { kernel, tools: { forTool: (name) => own.get(name) ?? kernel, close } }
}

/**
 * The rules, told which tools' calls run in the sandbox (`allowSandboxed`, docs/decisions/
 * permissions.md, 156): a tool whose sandbox mode is not `off` and whose sandbox's check of the
 * machine has not failed. No sandboxes (none configured): `allowSandboxed` rules allow nothing.
 */
export function withSandboxed(rules: RuleSet, sandboxes: ToolSandboxes | undefined): RuleSet {
  if (sandboxes === undefined || !rules.allow.some((rule) => rule.sandboxedOnly === true)) return rules
  let calls = known.get(sandboxes)
  if (calls === undefined) known.set(sandboxes, (calls = sandboxedCalls(sandboxes)))
  return { ...rules, sandboxed: calls }
}

/** One answer per kernel's sandboxes, whichever scope (the kernel's, a child's) asks. */
const known = new WeakMap<ToolSandboxes, SandboxedCalls>()

function sandboxedCalls(sandboxes: ToolSandboxes): SandboxedCalls {
  // Each sandbox's check once it has answered: undefined (it works) or why it cannot run. The check
  // is the one the first sandboxed process runs anyway (cached by the provider); asking starts it.
  const answers = new WeakMap<Sandbox, string | undefined>()
  const asked = new WeakSet<Sandbox>()
  return {
    runs(tool) {
      const sandbox = sandboxes.forTool(tool)
      if (sandbox.policy.mode === 'off') return false
      if (!asked.has(sandbox)) {
        asked.add(sandbox)
        void sandbox.check().then(
          (problem) => answers.set(sandbox, problem),
          (error: unknown) => answers.set(sandbox, String(error)),
        )
      }
      return answers.get(sandbox) === undefined
    },
  }
}
