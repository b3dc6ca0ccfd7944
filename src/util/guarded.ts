/** Calls a tool's own function; a throw yields the (fail-closed) fallback instead of escaping. */
export function guarded<T>(f: () => T, fallback: T): T {
  try {
    return f()
  } catch {
    return fallback
  }
}
