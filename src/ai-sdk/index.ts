/**
 * `toolkernel/ai-sdk`: the Vercel AI SDK (v6) adapter. The kernel's tools go to `generateText` /
 * `streamText` without `execute`, so the AI SDK stops at each step's tool calls; the app runs the
 * step's calls through the kernel as ONE turn (batches, order, permissions, hooks, budget, log)
 * and appends the AI SDK tool message it gets back. Needs `ai` (an optional peer dependency).
 *
 * @example
 * const kernel = createKernel({ tools: builtinTools, cwd })
 * for (;;) {
 *   const step = await generateText({ model, tools: aiSdkTools(kernel), messages })
 *   const { messages: toolMessages } = await runToolCalls(kernel, step)
 *   messages.push(...step.response.messages, ...toolMessages)
 *   if (toolMessages.length === 0) break
 * }
 */
export { aiSdkTools } from './tools.js'
export {
  runToolCalls,
  stopReasonOfFinish,
  type AiSdkStep,
  type AiSdkToolCall,
  type AiSdkToolCallsResult,
  type AiSdkTurnOptions,
} from './tool-calls.js'
export { startToolCalls, type AiSdkStreamedToolCalls, type AiSdkStreamPart } from './stream-tool-calls.js'
export { toToolModelMessages } from './tool-output.js'
export { answerToolApprovals, approvalRequests, type AiSdkApprovalsResult } from './approvals.js'
