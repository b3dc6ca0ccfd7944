/**
 * One call's key across the log: a `tool_use_id` is unique within its turn only (the model
 * chooses it), so maps over calls key on both. NUL cannot occur in a turn id the kernel makes,
 * so two different pairs never give the same key.
 */
export function callKey(turnId: string, toolUseId: string): string {
  return `${turnId}\u0000${toolUseId}`
}
