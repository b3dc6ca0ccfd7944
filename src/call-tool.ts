/**
 * `kernel.callTool`: one tool call the app makes itself, outside a model turn. It is a turn of
 * one synthesized `tool_use` block (id `call_…`), so the call walks the same nine steps —
 * validation, hooks, permissions (a parked ask included), budget, mapping — lands in the same
 * log, and pairs its `tool_use` with one `tool_result` as any other (docs/decisions/session.md,
 * "kernel.callTool").
 */
import type { PendingApproval, TurnResult } from './actors/turn/turn.types.js'
import type { KernelEvent, ToolResultBlock } from './events/event.schema.js'
import type { AssistantMessage } from './intake/assistant-message.js'

/** What `kernel.callTool` takes besides the name and the input. */
export interface CallToolOptions {
  /** Interrupts the call, as a turn's signal does: a 'cancel' tool is aborted, a wait is cancelled. */
  signal?: AbortSignal
}

/** One call's outcome: its `tool_result` block, what the tool returned, and the call's events. */
export interface CallToolResult {
  /** The synthesized `tool_use` id (`call_…`): what `kernel.answer` takes while the call is pending. */
  toolUseId: string
  /**
   * The `tool_result` block the model would have read — an error result for a call that failed,
   * was denied or was interrupted. Absent only while the call is parked (`pending` is not empty).
   */
  result?: ToolResultBlock
  /** What the tool returned (the log's `tool.completed` output); absent when it failed or went to the result store. */
  output?: unknown
  /** The turn's events, in log order: `turn.started` to `turn.completed`, the nine steps between. */
  events: KernelEvent[]
  /**
   * The call, when it waits for a person's answer (an ask nobody answered, docs/approvals.md):
   * answer it with `kernel.answer(toolUseId, …)`, whose TurnResult carries the block in
   * `message.content[0]`. Empty otherwise.
   */
  pending: PendingApproval[]
}

export interface CallToolDeps {
  /** The id for the synthesized block (the kernel's ids port, so tests and replay can fix it). */
  nextId(): string
  /** Whether the kernel has a tool (or alias) by this name now. */
  hasTool(name: string): boolean
  /** The tools the app may call, for the error that names a wrong one. */
  toolNames(): readonly string[]
  runTurn(message: AssistantMessage, options: CallToolOptions): Promise<TurnResult>
}

/**
 * Runs one call as a turn of one block.
 *
 * @throws Error for a name that is no tool of the kernel: the app named it, so it is the app's
 * bug, not the model's feedback (a model's unknown name gets an error `tool_result` instead).
 */
export async function callToolAsTurn(
  deps: CallToolDeps,
  name: unknown,
  input: unknown,
  options: CallToolOptions,
): Promise<CallToolResult> {
  if (typeof name !== 'string' || name === '')
    throw new TypeError(`kernel.callTool: the tool name must be a non-empty string, got ${JSON.stringify(name)}`)
  if (!deps.hasTool(name))
    throw new Error(
      `kernel.callTool: no tool named ${JSON.stringify(name)} in this kernel (${deps.toolNames().join(', ') || 'none'})`,
    )
  const id = deps.nextId()
  const message = {
    role: 'assistant' as const,
    stop_reason: 'tool_use' as const,
    content: [{ type: 'tool_use' as const, id, name, input }],
  }
  const turn = await deps.runTurn(message, options)
  return callResultOf(id, turn)
}

/** The one call's view of its turn. */
function callResultOf(toolUseId: string, turn: TurnResult): CallToolResult {
  const block = turn.message.content.find((entry) => entry.tool_use_id === toolUseId)
  const completed = turn.events.find(
    (event): event is Extract<KernelEvent, { type: 'tool.completed' }> =>
      event.type === 'tool.completed' && event.toolUseId === toolUseId,
  )
  return {
    toolUseId,
    ...(block !== undefined && turn.pending.length === 0 && { result: block as ToolResultBlock }),
    ...(completed?.output !== undefined && { output: completed.output }),
    events: turn.events,
    pending: turn.pending,
  }
}
