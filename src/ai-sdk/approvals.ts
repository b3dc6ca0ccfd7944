/**
 * Calls that wait for a person, in the AI SDK 6's terms (docs/approvals.md): a call the kernel
 * parked becomes a `tool-approval-request` part the app shows (its `approvalId` names the call and
 * the digest of the input the person sees), and the person's `tool-approval-response` parts answer
 * them through `kernel.answer` — in this process or another that opened the session.
 */
import type { ModelMessage, ToolApprovalRequest, ToolApprovalResponse, ToolModelMessage } from 'ai'
import type { PendingApproval, TurnResult } from '../actors/turn/turn.types.js'
import type { Kernel } from '../kernel.js'
import { toToolModelMessages } from './tool-output.js'

/** The approval requests for a turn's parked calls: append them to the step's assistant message. */
export function approvalRequests(pending: readonly PendingApproval[]): ToolApprovalRequest[] {
  return pending.map((call) => ({
    type: 'tool-approval-request',
    approvalId: approvalIdOf(call),
    toolCallId: call.toolUseId,
  }))
}

/** An approval id binds the call and the digest of its input: a response cannot approve other input. */
function approvalIdOf(call: Pick<PendingApproval, 'toolUseId' | 'digest'>): string {
  return `${call.toolUseId}#${call.digest}`
}

export interface AiSdkApprovalsResult {
  /** The tool message to append once no call is pending (none while some still wait). */
  messages: ToolModelMessage[]
  /** Calls that still wait, as approval requests. */
  approvals: ToolApprovalRequest[]
  /** The kernel's turn as it now stands. */
  turn: TurnResult
}

/**
 * Answers parked calls with the person's `tool-approval-response` parts (given alone, or inside
 * the messages the UI sent back — other parts are left alone). An approval allows the call; a
 * denial denies it with the response's reason. Resolves with the tool message once the turn's
 * calls are all answered.
 *
 * @throws Error for a response whose approval id names no waiting call or other input.
 * @example
 * const { messages: toolMessages, approvals } = await answerToolApprovals(kernel, uiMessages)
 * if (approvals.length === 0) messages.push(...toolMessages)
 */
export async function answerToolApprovals(
  kernel: Pick<Kernel, 'answer' | 'pendingApprovals'>,
  responses: ReadonlyArray<ToolApprovalResponse | ModelMessage>,
): Promise<AiSdkApprovalsResult> {
  const answers = responses.flatMap((item) => ('role' in item ? responsesIn(item) : [item]))
  if (answers.length === 0) throw new Error('answerToolApprovals: no tool-approval-response among the given parts')
  let turn: TurnResult | undefined
  for (const response of answers) {
    const hash = response.approvalId.lastIndexOf('#')
    const toolUseId = hash < 0 ? response.approvalId : response.approvalId.slice(0, hash)
    const digest = hash < 0 ? undefined : response.approvalId.slice(hash + 1)
    const bound = digest === undefined ? {} : { digest }
    turn = await kernel.answer(
      toolUseId,
      response.approved
        ? { behavior: 'allow', ...bound }
        : { behavior: 'deny', message: response.reason ?? 'The user denied this tool call.', ...bound },
    )
  }
  const result = turn as TurnResult
  const names = new Map(
    result.events.flatMap((e) => (e.type === 'tool.requested' ? [[e.toolUseId, e.name] as const] : [])),
  )
  return {
    messages: result.pending.length === 0 ? toToolModelMessages(result.message, names) : [],
    approvals: approvalRequests(result.pending),
    turn: result,
  }
}

function responsesIn(message: ModelMessage): ToolApprovalResponse[] {
  if (typeof message.content === 'string') return []
  return (message.content as ReadonlyArray<{ type: string }>).filter(
    (part): part is ToolApprovalResponse => part.type === 'tool-approval-response',
  )
}
