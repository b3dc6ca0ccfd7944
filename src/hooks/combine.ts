/**
 * Combining the results of hooks that ran in parallel: deterministic whatever order they finished
 * in. Deny beats ask beats allow; rewritten input and added context apply in configuration order.
 * Differs from the reference, where the last hook to finish could overwrite an earlier deny.
 */

/**
 * Characters of `additionalContext` (and of a reason) one answer may add to the tool_result, as
 * Claude Code caps hook output it injects; past it the text is cut and says so. The combined
 * context of all hooks of a step is capped again (combineHookResults), so the turn's messages stay bounded
 * whatever the hooks answer (docs/decisions/hooks.md, "Hostile hooks").
 */
export const MAX_HOOK_TEXT_CHARS = 10_000

/** `text` cut to `MAX_HOOK_TEXT_CHARS`, with a note saying how much was left out. */
export function capHookText(text: string, what: string): string {
  if (text.length <= MAX_HOOK_TEXT_CHARS) return text
  return `${text.slice(0, MAX_HOOK_TEXT_CHARS)}\n[${what} cut: ${MAX_HOOK_TEXT_CHARS} of ${text.length} characters kept]`
}

/** One hook's result, as the runner read it. */
export interface HookResult {
  /** Where it sits in the configuration, e.g. `PreToolUse[0].hooks[1]`. */
  label: string
  /** Its position in configuration order. */
  order: number
  outcome: 'continue' | 'block' | 'error'
  decision?: 'allow' | 'deny' | 'ask'
  reason?: string
  updatedInput?: Record<string, unknown>
  additionalContext?: string
  systemMessage?: string
  /** `continue: false`: stop, with this reason. */
  stopReason?: string
  error?: string
  /** A command hook's exit code. */
  exitCode?: number | null
}

/** What the hooks of one step decided together. */
export interface CombinedHooks {
  outcome: 'continue' | 'block'
  decision?: 'allow' | 'deny' | 'ask'
  reason?: string
  updatedInput?: Record<string, unknown>
  additionalContext?: string
  systemMessages: string[]
  errors: string[]
}

export function combineHookResults(results: readonly HookResult[], phase: 'pre' | 'post'): CombinedHooks {
  const ordered = [...results].sort((a, b) => a.order - b.order)
  const blocking = ordered.filter((r) => r.outcome === 'block' || r.decision === 'deny' || r.stopReason !== undefined)
  const reasons = (list: readonly HookResult[]) =>
    list.map((r) => r.stopReason ?? r.reason ?? `${r.label} gave no reason`).join('; ')
  const context = ordered.map((r) => r.additionalContext).filter((c): c is string => c !== undefined && c !== '')
  const combined: CombinedHooks = {
    outcome: 'continue',
    systemMessages: ordered.map((r) => r.systemMessage).filter((m): m is string => m !== undefined),
    errors: ordered.filter((r) => r.error !== undefined).map((r) => `${r.label}: ${r.error}`),
  }
  if (phase === 'post') {
    // After the call nothing can be blocked: a hook's objection is feedback for the model.
    const feedback = blocking.length > 0 ? [...context, reasons(blocking)] : context
    if (feedback.length > 0) combined.additionalContext = capHookText(feedback.join('\n'), 'hook context')
    return combined
  }
  if (blocking.length > 0)
    return { ...combined, outcome: 'block', decision: 'deny', reason: capHookText(reasons(blocking), 'reasons') }
  const asking = ordered.filter((r) => r.decision === 'ask')
  const allowing = ordered.filter((r) => r.decision === 'allow')
  if (asking.length > 0) {
    combined.decision = 'ask'
    combined.reason = reasons(asking)
  } else if (allowing.length > 0) {
    combined.decision = 'allow'
    combined.reason = reasons(allowing)
  }
  const rewrites = ordered.map((r) => r.updatedInput).filter((u): u is Record<string, unknown> => u !== undefined)
  if (rewrites.length > 0) combined.updatedInput = Object.assign({}, ...rewrites) as Record<string, unknown>
  if (context.length > 0) combined.additionalContext = capHookText(context.join('\n'), 'hook context')
  return combined
}
