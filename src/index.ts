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
  type ApprovalAnswer,
  type HandOver,
  type HandOverMessageOf,
} from './kernel.js'
export type { CallToolOptions, CallToolResult } from './call-tool.js'
export type { Turn, TurnResult, EarlyStart, PendingApproval } from './actors/turn/turn.types.js'
export { pendingApprovals } from './projections/approvals.projection.js'
export type { TurnUpdate, ProgressUpdate } from './projections/updates.projection.js'
export type { ProgressPair } from './events/progress-pair.js'
export type {
  ProgressOf,
  ToolsProgress,
  KernelProgress,
  ToolProgress,
  ToolsProgressByName,
  KernelProgressByName,
} from './tools/progress.types.js'
export { type CallFlags, RULE_FLAGS, type RuleFlag } from './tools/call-flags.js'
export type { AssistantMessage, AnthropicAssistantMessage, ToolUseBlock } from './intake/assistant-message.js'
export type {
  OpenAIAssistantMessage,
  OpenAIChatChoice,
  OpenAIChatCompletion,
  OpenAIFunctionToolCall,
  OpenAICustomToolCall,
} from './intake/openai.js'
export type { OpenAIResponse, ResponsesFunctionCall, ResponsesOutputItem } from './intake/openai-responses-items.js'
export {
  IMAGE_MEDIA_TYPES,
  type ImageMediaType,
  type ToolResultMessageParam,
  type ToolResultParam,
  type ToolResultPartParam,
} from './intake/message-param.js'
export { parseSSE } from './intake/sse.js'

// The tool contract and the built-in tools.
export { buildTool, defaultMapper, DEFAULT_MAX_RESULT_SIZE_CHARS } from './tools/build-tool.js'
export { lazySchema, type LazySchema } from './tools/lazy-schema.js'
export { toAPIFormat, inputJsonSchema, type ApiTool } from './tools/to-api-format.js'
// The tool pool: deferred tools, ToolSearch, each provider's tools parameter.
export {
  API_FORMATS,
  strictCompatible,
  type ApiFormat,
  type ApiToolOf,
  type AnthropicApiTool,
  type OpenAIChatApiTool,
  type OpenAIResponsesApiTool,
  type OpenAIResponsesFunctionTool,
  type OpenAIResponsesToolSearch,
} from './tools/to-api-format.js'
export { TOOL_SEARCH_NAME, type ToolSearchOutput } from './tools/builtin/tool-search.tool.js'
export type { PoolSnapshot } from './tools/pool/assemble-pool.js'
// The loaded set as the log records it (what resume and replay rebuild).
export { loadedFromLog } from './tools/pool/pool-log.js'
export { searchTools, DEFAULT_SEARCH_RESULTS, MAX_SEARCH_RESULTS, type SearchAnswer } from './tools/pool/search.js'
export type { DeferralOptions, ThresholdOutcome } from './tools/pool/threshold.js'
export type { ToolSource, ToolSourceStatus, ToolSourceName, ToolSourceDiagnostic } from './tools/tool-source.types.js'
export type {
  Tool,
  ToolDef,
  DescribeContext,
  ToolContext,
  PredicateContext,
  ToolCall,
  ValidationResult,
  PermissionResult,
  InterruptBehavior,
  JsonSchemaObject,
} from './tools/tool.types.js'
// Retries a tool declares (docs/design.md §Deadlines and retries).
export type { RetryPolicy, Backoff } from './tools/retry.js'
export {
  Read,
  Write,
  Edit,
  MultiEdit,
  NotebookEdit,
  Bash,
  BashOutput,
  KillShell,
  Glob,
  Grep,
  builtinTools,
  createRead,
  type ReadOptions,
  type PdfDocument,
  type PdfLibrary,
  type PdfLibraryLoader,
} from './tools/builtin/index.js'
// The web, read-only, public addresses by default (docs/decisions/tools.md #134).
export {
  WebFetch,
  createWebFetch,
  WEB_FETCH_DEFAULTS,
  type WebFetchInput,
  type WebFetchOptions,
} from './tools/builtin/web-fetch.tool.js'
// The session that changes as it goes (docs/session-context.md).
export { EnterPlanMode, ExitPlanMode, planModeTools, type ExitPlanModeInput } from './tools/builtin/index.js'
export {
  createAgentTool,
  DEFAULT_AGENT_MAX_TURNS,
  type AgentDefinition,
  type AgentInput,
  type AgentMessage,
  type AgentModel,
  type AgentStream,
  type AgentModelRequest,
  type AgentResponse,
  type AgentToolOptions,
} from './tools/builtin/agent.tool.js'
export type { ChildOptions, ChildRules, ChildSession, ChildStreamTurn, ChildTurnResult } from './tools/child.types.js'
export { changeContext, type ContextChange, type ContextChanged, type SessionView } from './tools/context-change.js'
// The session's task list and questions for the user (docs/session-context.md, docs/approvals.md).
export { TodoWrite, type TodoWriteInput, AskUserQuestion, type AskUserQuestionInput } from './tools/builtin/index.js'
export type { Question, QuestionOption } from './tools/builtin/index.js'
export { todosOf, TODOS_KEY, type TodoItem, type TodoStatus } from './tools/todos.js'
// The read-only verdict Bash gets from a kernel (its `ports.shell`), with the grammar a kernel loaded.
export { commandReadOnly as readOnlyVerdict } from './permissions/shell/installed.js'

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
export { TelemetrySafeError, classifyToolError } from './events/error-class.js'
export { createMemoryLog, type MemoryLogOptions } from './adapters/memory-log.store.js'
export { createJsonlLog, readJsonlFile, type JsonlLogOptions } from './adapters/jsonl-log.store.js'
export { createMemoryEventStore } from './adapters/memory-event.store.js'
// Session snapshots (issue 33): the history a resume works from, for an app that keeps its own log.
export { resumeHistory } from './events/snapshot.js'
export { createJsonlEventStore, type JsonlEventStoreOptions } from './adapters/jsonl-event.store.js'
export type {
  AppendOptions,
  AppendResult,
  Checkpoint,
  EventStore,
  FsyncPolicy,
  Lease,
  LeaseResult,
  StoreSubscription,
  StoredEvent,
  SubscribeOptions,
} from './ports/event-store.port.js'
export type { SessionLeaseOptions } from './adapters/session-event.store.js'
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
// The OS sandbox for Bash and command hooks (docs/sandbox.md).
export { createBubblewrap, type BubblewrapOptions } from './adapters/bubblewrap.sandbox.js'
export type { SandboxOptions, SandboxSettings, SandboxConfig } from './sandbox-config.js'
export type {
  CommandLine,
  Sandbox,
  SandboxMode,
  SandboxNetwork,
  SandboxPolicy,
  SandboxProvider,
  SandboxScope,
  ToolSandboxes,
} from './ports/index.js'
export type { Clock, IdGenerator, EventLog, ResultStore, ResultKey, ResultWriter } from './ports/index.js'
export { createFileSearch, type FileSearchOptions } from './adapters/file-search.js'
export { createWebClient, type WebClientOptions } from './adapters/web-client.js'
export { classifyAddress, type AddressClass } from './util/ip-address.js'
export type { HostLookup, ResolvedAddress, WebClient, WebRequestOptions, WebResponse } from './ports/index.js'
export type {
  FileSystem,
  FileStat,
  FileKind,
  OpenReadOptions,
  WriteFileOptions,
  ProcessRunOptions,
  ProcessRunner,
  ProcessResult,
  FileSearch,
  GrepOptions,
  GrepResult,
  GlobMatch,
  GlobOptions,
  GlobResult,
  SessionState,
  ToolPorts,
  ShellAnalyzer,
  CommandVerdict,
  BackgroundProcess,
  BackgroundStartOptions,
  BackgroundExit,
  UnreadOutput,
  BackgroundShells,
  ShellActor,
  ShellRead,
  ShellKilled,
  ShellStarted,
} from './ports/index.js'

// Projections of a log.
export {
  projectMessages,
  projectTurnMessage,
  reduceTurnMessage,
  type ToolResultMessage,
} from './projections/messages.projection.js'
export { toOpenAIToolMessages, type OpenAIToolMessage } from './projections/openai.projection.js'
export {
  toResponsesInputItems,
  type ResponsesFunctionCallOutput,
  type ResponsesInputImage,
  type ResponsesInputText,
  type ResponsesToolSearchOutput,
  type ResponsesFunctionToolParam,
  type ResponsesToolOutputItem,
  type ResponsesTurn,
} from './projections/openai-responses.projection.js'
export { projectTimeline, type TimelineRow } from './projections/timeline.projection.js'
export { DEFAULT_MESSAGE_BUDGET_CHARS } from './actors/turn/budget.js'

// Replay and recovery.
export { recover, RECOVERY_REASON } from './events/recovery.js'
export { replay, type ReplayOptions, type ReplayResult, type Divergence } from './replay/replay.js'
export type { NotChecked } from './replay/not-checked.js'
export { TOOLKERNEL_VERSION } from './version.js'
