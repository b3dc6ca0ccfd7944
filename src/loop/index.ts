/**
 * `toolkernel/loop`: the provider loop, written once. The app passes its own SDK client (no SDK
 * is a dependency of toolkernel) bound to one API; `runLoop` asks the model, runs each turn's
 * tool calls through the kernel, appends both to the conversation in the SDK's own message type,
 * and stops when the model is done, `stopWhen` or `maxSteps` says so, calls wait for approval, or
 * the signal aborts. Batch or streaming (`stream: true`: calls start while the model streams).
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk'
 * import { anthropic, runLoop } from 'toolkernel/loop'
 * const { messages, stopped } = await runLoop({
 *   model: anthropic(new Anthropic(), { model: 'claude-sonnet-4-5', max_tokens: 4096 }),
 *   kernel,
 *   messages: [{ role: 'user', content: 'Fix the failing test.' }],
 *   stream: true,
 * })
 */
export {
  runLoop,
  DEFAULT_MAX_STEPS,
  type LoopOptions,
  type LoopResult,
  type LoopStep,
  type LoopStop,
  type LoopPendingCall,
} from './run-loop.js'
export {
  anthropic,
  openaiChat,
  openaiResponses,
  type LoopModel,
  type AnthropicClient,
  type AnthropicMessageOf,
  type AnthropicResponseOf,
  type AnthropicParams,
  type OpenAIChatClient,
  type OpenAIChatMessageOf,
  type OpenAIChatResponseOf,
  type OpenAIChatParams,
  type OpenAIResponsesClient,
  type OpenAIResponsesItemOf,
  type OpenAIResponsesResponseOf,
  type OpenAIResponsesParams,
} from './providers.js'
