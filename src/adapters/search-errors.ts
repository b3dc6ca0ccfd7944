/** Messages shared by the search engines. */

/** The error a search rejects with when its signal aborts: "the search was aborted: <reason>". */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  const why = reason instanceof Error ? reason.message : String(reason)
  return new Error(`the search was aborted: ${why}`)
}

/** 20000 → "20", 200 → "0.2": a time limit as the messages give it. */
export function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10)
}
