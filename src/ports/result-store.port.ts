/** Where oversize tool output goes (the budget step). */
export interface ResultStore {
  /** Saves `content` under a name derived from `toolUseId` (never outside the store) and returns its path. */
  save(toolUseId: string, content: string): Promise<string>
}
