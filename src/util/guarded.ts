/** Calls a function that may throw (a tool's own, a path lookup); a throw yields the fallback instead. */
export function guarded<T>(f: () => T, fallback: T): T {
  try {
    return f()
  } catch {
    return fallback
  }
}
