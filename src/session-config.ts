/**
 * The session.configured event: what a kernel was built with, logged with its first turn so the
 * log replays on its own (the CLI builds stand-ins for exactly these tools).
 */
import type { KernelEventInput } from './events/event.schema.js'
import type { HooksConfig } from './hooks/config.js'
import type { SandboxPolicy } from './ports/sandbox.port.js'
import type { SandboxConfig } from './sandbox-config.js'
import { toolManifest } from './tools/tool-manifest.js'
import type { Tool } from './tools/tool.types.js'
import { TOOLKERNEL_VERSION } from './version.js'

export interface SessionSettings {
  tools: readonly Tool[]
  cwd: string
  permissions: { mode: string; allow: string[]; ask: string[]; deny: string[]; allowSandboxed?: string[] }
  hooks: HooksConfig | undefined
  /** The app gave canUseTool. */
  asks: boolean
  /** What an "ask" nobody answers in the turn does. */
  approvals: 'park' | 'deny'
  /** The pool's format and deferral, when the pool is dynamic (see KernelPool.dynamic). */
  pool?: { format: string; deferral: { mode: string; contextTokens: number; share: number; maxTools: number } }
  maxConcurrency: number
  messageBudgetChars: number
  progressLogChars: number
  /** The kernel's deadline settings, recorded when it has a default deadline. */
  timing?: { defaultTimeoutMs: number | undefined; graceMs: number }
  /** The sandbox Bash and command hooks run in, when the app configured one. */
  sandbox?: SandboxConfig | undefined
}

export function sessionConfigured(turnId: string, settings: SessionSettings): KernelEventInput {
  const { mode, allow, ask, deny, allowSandboxed } = settings.permissions
  return {
    type: 'session.configured',
    turnId,
    toolkernel: TOOLKERNEL_VERSION,
    cwd: settings.cwd,
    mode,
    rules: { allow, ask, deny, ...(allowSandboxed !== undefined && { allowSandboxed }) },
    limits: {
      maxConcurrency: settings.maxConcurrency,
      messageBudgetChars: settings.messageBudgetChars,
      progressLogChars: Number.isFinite(settings.progressLogChars) ? settings.progressLogChars : null,
      ...timingLimits(settings.timing),
    },
    hooks: hookSummary(settings.hooks),
    asks: settings.asks,
    approvals: settings.approvals,
    ...(settings.pool !== undefined ? { pool: settings.pool } : {}),
    ...(settings.sandbox !== undefined ? { sandbox: sandboxSummary(settings.sandbox) } : {}),
    tools: settings.tools.map(toolManifest),
  }
}

/** Each matcher group as event, matcher and what runs (commands as written, functions by name). */
function hookSummary(config: HooksConfig | undefined): Array<{ event: string; matcher: string; hooks: string[] }> {
  if (config === undefined || config === null || typeof config !== 'object') return []
  return Object.entries(config).flatMap(([event, groups]) =>
    (Array.isArray(groups) ? groups : []).map((group: NonNullable<HooksConfig['PreToolUse']>[number]) => ({
      event,
      matcher: group.matcher ?? '',
      hooks: group.hooks.map((hook) =>
        hook.type === 'command' ? hook.command : `function ${hook.name ?? '(anonymous)'}`,
      ),
    })),
  )
}

/** The kernel's default deadline and grace, when it has one (a log without them had none). */
function timingLimits(timing: SessionSettings['timing']): { toolTimeoutMs?: number; timeoutGraceMs?: number } {
  const ms = timing?.defaultTimeoutMs
  if (timing === undefined || ms === undefined || !Number.isFinite(ms)) return {}
  return { toolTimeoutMs: ms, timeoutGraceMs: timing.graceMs }
}

type PolicyRecord = { mode: string; network: string; writable: string[]; allowDomains?: string[] }

/** The sandbox as the log keeps it: each policy's mode, network and writable paths (and each tool's). */
function sandboxSummary(config: SandboxConfig): PolicyRecord & { tools?: Record<string, PolicyRecord> } {
  const record = (policy: SandboxPolicy): PolicyRecord => ({
    mode: policy.mode,
    // { allowDomains } is kept as network 'allowDomains' and the list beside it (sandboxOptionsOf reads it back).
    ...(typeof policy.network === 'object'
      ? { network: 'allowDomains', allowDomains: [...policy.network.allowDomains] }
      : { network: policy.network }),
    writable: [...policy.writable],
  })
  const tools = config.tools
  if (tools === undefined) return record(config)
  return {
    ...record(config),
    tools: Object.fromEntries(Object.entries(tools).map(([name, policy]) => [name, record(policy)])),
  }
}
