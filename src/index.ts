/**
 * toolkernel: executes the tool calls an LLM emits. The public surface: what an app uses to run
 * turns, write tools, store and read logs, replay and recover them. Named exports only; the
 * engine's internals (the machine, the scheduler, the hook runner) are not part of it.
 */

// The kernel and its turns.
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
export type { AssistantMessage, ToolUseBlock } from './intake/assistant-message.js'
export type { OpenAIAssistantMessage } from './intake/openai.js'
export { parseSSE } from './intake/sse.js'

// The tool contract and the built-in tools.
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
export { Read, Write, Edit, Bash, Glob, Grep, builtinTools, readOnlyVerdict } from './tools/builtin/index.js'

// Permissions and hooks, as an app configures them.
export {
  PERMISSION_MODES,
  type CanUseTool,
  type PermissionRequest,
  type PermissionAnswer,
  type PermissionMode,
} from './permissions/policy.js'
export { parseRule, type PermissionRule } from './permissions/rules.js'
export type { RuleConfig } from './permissions/ruleset.js'
export type { GrantScope } from './permissions/grants.js'
export type { HooksConfig, HookInput, HookOutput, HookFunction, HookEventName } from './hooks/config.js'

// Events and their stores.
export {
  KernelEventSchema,
  EVENT_VERSION,
  type KernelEvent,
  type KernelEventInput,
  type KernelEventType,
  type EventOf,
  type ToolResultBlock,
  type Step,
  type FailureCode,
} from './events/event.schema.js'
export { parseJsonl, toJsonLine, type ParsedLog, type CorruptLine } from './events/jsonl.js'
export { createMemoryLog } from './adapters/memory-log.store.js'
export { createJsonlLog, readJsonlFile, type JsonlLogOptions } from './adapters/jsonl-log.store.js'
export { checkLogOrder, type LogOrder } from './events/log-order.js'
export {
  createDirectoryResultStore,
  createDefaultResultStore,
  defaultResultStoreDir,
  resultFileName,
} from './adapters/result-store.js'
export { systemClock } from './adapters/system.js'
export { createProcessRunner, type ProcessRunnerOptions } from './adapters/process-runner.js'
export {
  buildChildEnvironment,
  DEFAULT_ENVIRONMENT_ALLOWLIST,
  type ChildEnvironmentOptions,
} from './adapters/child-environment.js'
export type { Clock, IdGenerator, EventLog, ResultStore, ResultKey, ResultWriter } from './ports/index.js'
export { createFileSearch, type FileSearchOptions } from './adapters/file-search.js'
export type {
  FileSystem,
  FileStat,
  FileKind,
  OpenReadOptions,
  ProcessRunOptions,
  ProcessRunner,
  ProcessResult,
  FileSearch,
  GrepOptions,
  GrepResult,
  GlobMatch,
  SessionState,
  ToolPorts,
} from './ports/index.js'

// Projections of a log.
export {
  projectMessages,
  projectTurnMessage,
  reduceTurnMessage,
  type ToolResultMessage,
} from './projections/messages.projection.js'
export { toOpenAIToolMessages, type OpenAIToolMessage } from './projections/openai.projection.js'
export { projectTimeline, type TimelineRow } from './projections/timeline.projection.js'
export { DEFAULT_MESSAGE_BUDGET_CHARS } from './actors/turn/budget.js'

// Replay and recovery.
export { recover, RECOVERY_REASON } from './replay/recovery.js'
export { replay, type ReplayOptions, type ReplayResult, type Divergence } from './replay/replay.js'
export { TOOLKERNEL_VERSION } from './version.js'
