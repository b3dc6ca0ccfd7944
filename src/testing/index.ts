/**
 * toolkernel/testing: property-test your own tool layer. Arbitraries for assistant messages and
 * model streams built from your tools' schemas, `checkToolLayer` to run your kernel
 * configuration over random turns with faults injected and check every promise the engine
 * makes, and doubles for app tests (recorded tools, a fake clock). fast-check is a peer
 * dependency of this subpath only.
 *
 * @example
 * import { checkToolLayer } from 'toolkernel/testing'
 * await checkToolLayer(() => ({ tools: [MyTool], permissions: { allow: ['MyTool'] } }))
 */
export {
  checkToolLayer,
  type CheckToolLayerOptions,
  type ToolLayerConfig,
  type ToolLayerReport,
  type TurnMode,
} from './check-tool-layer.js'
export {
  assistantMessages,
  toolUseInputs,
  anthropicStreams,
  openAIChatStreams,
  toolUsesOf,
  HOSTILE_TOOL_USE_IDS,
  type ArbitraryAssistantMessage,
  type MessageOptions,
  type ToolUseBlockParam,
} from './message.arbitrary.js'
export { arbitraryForSchema, invalidForSchema } from './json-schema.arbitrary.js'
export { instrumentTools, type Fault, type ProbedCall, type Probe } from './instrumented-tools.js'
export { recordedTools, fakeClock, type FakeClock } from './recorded-tools.js'
