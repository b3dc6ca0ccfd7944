/**
 * The hook seam of the pre-hook and post-hook steps: the kernel's runner (src/hooks) sits behind
 * it, and tests or replay can put another there.
 */
import type { CombinedHooks } from './combine.js'
import type { Tool } from '../tools/tool.types.js'

export type HookPhase = 'pre' | 'post'

export interface HookRequest {
  phase: HookPhase
  turnId: string
  toolUseId: string
  tool: Tool
  input: unknown
  /** After a successful call: its output. */
  response?: unknown
  /** After a failed call: the failure text, and whether it was an interrupt. */
  error?: string
  isInterrupt?: boolean
}

export type HookOutcome = CombinedHooks

export interface HookRunner {
  /** Whether any hook matches this call: when none does, the step is skipped without a transition. */
  has(phase: HookPhase, tool: Tool, toolUseId: string): boolean
  run(request: HookRequest, signal: AbortSignal): Promise<HookOutcome>
}

/** No hooks configured. */
export const noHooks: HookRunner = {
  has: () => false,
  run: async () => ({ outcome: 'continue', systemMessages: [], errors: [] }),
}
