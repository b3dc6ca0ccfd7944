/** Per-kernel scratch state the tools share (what Read recorded, for Write and Edit). Never global. */
export interface SessionState {
  get<T>(key: string): T | undefined
  set<T>(key: string, value: T): void
}
