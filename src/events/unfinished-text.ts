/**
 * What the model reads about a call that did not finish: cancelled before it ran, interrupted
 * while running, or run to its end with its result never delivered. Recovery writes these into
 * the log (src/events/recovery.ts) and the call writes the first two, so they live with the log
 * format: the same log always gets the same words. tools/result-text.ts re-exports them.
 */

export function cancelledText(tool: string, reason: string): string {
  return `${tool} was cancelled before it ran: ${reason}. It had no effect; call it again if it is still needed.`
}

export function interruptedText(tool: string, reason: string, partial: string): string {
  const output = partial === '' ? 'It produced no output before it stopped.' : `Output before it stopped:\n${partial}`
  return `${tool} was interrupted while running: ${reason}. It may have had partial effects; check before calling it again. ${output}`
}

/**
 * A call that ran to its end, but whose result was never delivered (the process stopped after
 * the tool returned): it has taken effect, and what it answered is known.
 */
export function ranUnrecordedText(tool: string, reason: string, known: string): string {
  return `${tool} ran to its end, but ${reason}, so its result was not delivered. It has taken effect; do not repeat it without checking. ${known}`
}

/** Why a call timed out, from its `tool.timed_out` (the fold keeps it as the failure's message). */
export function timedOutReason(event: {
  timeoutMs: number
  graceMs?: number | undefined
  attempts?: number | undefined
}): string {
  const grace = event.graceMs === undefined ? '' : ` and the ${event.graceMs} ms of grace after it`
  const attempts =
    event.attempts === undefined ? '' : ` over ${event.attempts} ${event.attempts === 1 ? 'attempt' : 'attempts'}`
  return `it ran out of time after ${event.timeoutMs} ms (its deadline${grace})${attempts}`
}

/**
 * A call stopped at its deadline: it may or may not have finished its work (a tool that ignores
 * its signal may still be running), so the model is told to check before calling it again.
 */
export function timedOutText(tool: string, reason: string, partial: string): string {
  const output =
    partial === '' ? 'It produced no output before it was stopped.' : `Output before it was stopped:\n${partial}`
  return `${tool} timed out: ${reason}, and the kernel stopped waiting for it. It may or may not have finished its work; check before calling it again. ${output}`
}
