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
