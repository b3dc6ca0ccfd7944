/**
 * toolkernel: executes the tool calls an LLM emits. The public surface: named exports only.
 */
export {
  createKernel,
  DEFAULT_MAX_CONCURRENCY,
  type Kernel,
  type KernelOptions,
  type TurnOptions,
  type StreamTurnOptions,
} from './kernel.js'
export type { Turn, TurnResult, EarlyStart } from './actors/turn/turn.js'
export type { TurnUpdate } from './projections/updates.projection.js'
export { toOpenAIToolMessages, type OpenAIToolMessage } from './projections/openai.projection.js'
export type { OpenAIAssistantMessage } from './intake/openai.js'
export { buildTool, defaultMapper, DEFAULT_MAX_RESULT_SIZE_CHARS } from './tools/build-tool.js'
export { lazySchema, type LazySchema } from './tools/lazy-schema.js'
export { toAPIFormat, inputJsonSchema, type ApiTool } from './tools/to-api-format.js'
export type {
  Tool,
  ToolDef,
  ToolContext,
  ToolCall,
  ValidationResult,
  PermissionResult,
  InterruptBehavior,
  JsonSchemaObject,
} from './tools/tool.types.js'
export type {
  CanUseTool,
  PermissionRequest,
  PermissionAnswer,
  PermissionMode,
  PermissionPolicy,
} from './permissions/policy.js'
export { PERMISSION_MODES } from './permissions/policy.js'
export { parseRule, type PermissionRule } from './permissions/rules.js'
export { compileRules, type RuleConfig } from './permissions/ruleset.js'
export { fingerprint, type GrantScope } from './permissions/grants.js'
export type { HooksConfig, HookInput, HookOutput, HookFunction, HookEventName } from './hooks/config.js'
export { combineHookResults, type HookResult, type CombinedHooks } from './hooks/combine.js'
export type { HookRunner, HookRequest, HookOutcome, HookPhase } from './hooks/hook-runner.js'
export {
  KernelEventSchema,
  ToolResultBlockSchema,
  EVENT_VERSION,
  STEPS,
  type KernelEvent,
  type KernelEventInput,
  type KernelEventType,
  type EventOf,
  type ToolResultBlock,
  type Step,
  type FailureCode,
} from './events/event.schema.js'
export { createMemoryLog } from './adapters/memory-log.store.js'
export { parseJsonl, toJsonLine, type ParsedLog, type CorruptLine } from './events/jsonl.js'
export { createJsonlLog, type JsonlLogOptions } from './adapters/jsonl-log.store.js'
export {
  projectMessages,
  projectTurnMessage,
  reduceTurnMessage,
  type ToolResultMessage,
} from './projections/messages.projection.js'
export { projectTimeline, type TimelineRow } from './projections/timeline.projection.js'
export { toolCallMachine } from './machines/tool-call.machine.js'
export type { AssistantMessage, ToolUseBlock } from './intake/assistant-message.js'
export type { Clock, IdGenerator, EventLog, ResultStore } from './ports/index.js'
export { parseSSE } from './intake/sse.js'
export { Read, Write, Edit, Bash, Glob, Grep, builtinTools, readOnlyVerdict } from './tools/builtin/index.js'
export { createDirectoryResultStore, resultFileName } from './adapters/result-store.js'
export { DEFAULT_MESSAGE_BUDGET_CHARS } from './actors/turn/budget.js'
export type {
  FileSystem,
  FileStat,
  ProcessRunner,
  ProcessResult,
  FileSearch,
  GrepOptions,
  GrepResult,
  GlobMatch,
  SessionState,
  ToolPorts,
} from './ports/index.js'
export { recover, RECOVERY_REASON } from './replay/recovery.js'
export { replay, type ReplayOptions, type ReplayResult, type Divergence } from './replay/replay.js'
