/**
 * The hook seam of the pre-hook and post-hook steps. The kernel core runs without hooks; the
 * hooks issue plugs command and in-process hooks in behind this interface.
 */
import type { Tool } from '../tools/tool.types.js'

export type HookPhase = 'pre' | 'post'

export interface HookRequest {
  phase: HookPhase
  tool: Tool
  toolUseId: string
  input: unknown
  /** After the call: its output, or the failure text. */
  response?: unknown
  error?: string
}

export interface HookOutcome {
  /** 'block' ends a pre-hook call early with `reason` as the model-facing text. */
  outcome: 'continue' | 'block'
  reason?: string
  additionalContext?: string
}

export interface HookRunner {
  /** Whether any hook matches: when none does, the step is skipped without a transition. */
  has(phase: HookPhase, tool: Tool): boolean
  run(request: HookRequest, signal: AbortSignal): Promise<HookOutcome>
}

/** No hooks configured. */
export const noHooks: HookRunner = {
  has: () => false,
  run: async () => ({ outcome: 'continue' }),
}
