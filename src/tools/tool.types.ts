/**
 * The tool contract: what a tool declares, and what it receives when it runs.
 */
import type { z } from 'zod'
import type { ToolResultBlock } from '../events/event.schema.js'
import type { ShellAnalyzer, ToolPorts } from '../ports/index.js'
import type { LazySchema } from './lazy-schema.js'
import type { RetryPolicy } from './retry.js'
import type { ContextChanged, SessionView } from './context-change.js'
import type { ChildOptions, ChildSession } from './child.types.js'
import type { JsonSchemaObject } from './api-tool.types.js'

export type { JsonSchemaObject } from './api-tool.types.js'

/** What a tool receives when called. Everything it may touch comes through here, never globals. */
export interface ToolContext {
  /** Aborted when the call is interrupted (turn abort for 'cancel' tools, sibling cascade, discard). */
  readonly signal: AbortSignal
  /**
   * The session's working directory: the kernel's `cwd`, or where a call that ran alone moved it
   * (docs/session-context.md). Permission path rules stay anchored to the kernel's `cwd`.
   */
  readonly cwd: string
  /**
   * The session as it stands when the call starts: working directory, environment entries for
   * child processes, app data, permission mode. Absent outside a kernel (a tool called directly).
   */
  readonly session?: SessionView
  readonly turnId: string
  readonly toolUseId: string
  /** Reports progress; it reaches `updates()` and the log, never the `tool_result`. */
  onProgress(data: unknown): void
  readonly ports: ToolPorts
  /**
   * Whether the permission rules let the model read this absolute path (a `Read(…)` deny rule
   * does not). Tools that list or search files leave out what it may not read.
   */
  mayRead(path: string): boolean
  /**
   * Runs a child session (a subagent) under this call: its own tools and rules, which only
   * narrow the parent's, its events in the same log with `parentToolUseId` (docs/subagents.md).
   * Absent outside a kernel.
   */
  runChild?(options?: ChildOptions): ChildSession
  /**
   * The permission rule that decides this input for the named tool (deny > ask > allow), or
   * undefined when none matches: what a tool checks a step it takes on its own against (WebFetch
   * each redirect's target). Absent outside a kernel, where no rules exist.
   */
  ruleFor?(tool: string, input: unknown): { behavior: 'allow' | 'ask' | 'deny'; rule: string } | undefined
}

/**
 * What the kernel hands a tool's predicates (`isConcurrencySafe`, `isReadOnly`, `isDestructive`,
 * `isOpenWorld`): analyses, never I/O. A caller outside the kernel may leave it out; a predicate
 * that needs it then answers fail-closed (not safe, not read-only, destructive).
 */
export interface PredicateContext {
  readonly shell: ShellAnalyzer
}

/**
 * What a tool's `description` and `prompt` receive: the pool they are sent in, as it stands when
 * the kernel assembles it between turns (docs/decisions/tools.md #153). A zero-argument
 * description ignores it.
 *
 * @example
 * async prompt({ tools, mode }) {
 *   const schema = tools.includes('Schema') ? ' Call Schema first for the table names.' : ''
 *   return `Runs a query.${schema}${mode === 'plan' ? ' Read-only in plan mode.' : ''}`
 * }
 */
export interface DescribeContext {
  /**
   * The names of the tools the model may use alongside this one (enabled, not denied outright,
   * offered in the mode; deferred ones included, ToolSearch not), in registry order.
   */
  readonly tools: readonly string[]
  /** The session's permission mode. */
  readonly mode: string
  /** The session's working directory. */
  readonly cwd: string
  /** This tool's input JSON Schema as it is sent. */
  readonly inputSchema: JsonSchemaObject
}

export type ValidationResult = { result: true } | { result: false; message: string }

export type PermissionResult<I> =
  { behavior: 'allow'; updatedInput?: I } | { behavior: 'deny'; message: string } | { behavior: 'ask'; message: string }

export type InterruptBehavior = 'cancel' | 'block'

/**
 * A tool's run: an async generator that yields progress and returns the output, or a plain async
 * function. Either may return `changeContext(output, change)` to change the session for the calls
 * after it (docs/session-context.md).
 */
export type ToolCall<I, O, P> = (
  input: I,
  context: ToolContext,
) => AsyncGenerator<P, O | ContextChanged<O>, void> | Promise<O | ContextChanged<O>>

/** What `buildTool` takes: the name, schema, description and call are required; the rest have fail-closed defaults. */
export interface ToolDef<I, O = unknown, P = unknown> {
  name: string
  aliases?: readonly string[]
  /** Words that help a tool search find this tool (weighted above the description); never sent to the model. */
  searchHint?: string
  /**
   * Keep this tool out of the prompt until ToolSearch (or a call) loads it: only its name is
   * sent (Anthropic and OpenAI Responses `defer_loading`), or nothing (other formats). Deferral
   * is automatic by default: deferrable tools are deferred only when their definitions exceed the
   * kernel's threshold. Default false.
   */
  shouldDefer?: boolean
  /** Never deferred, whatever `shouldDefer` or the threshold say (a tool the model needs every turn). */
  alwaysLoad?: boolean
  /**
   * Example inputs, checked against the input schema by `buildTool` and sent as
   * `input_examples` where the provider takes them (Anthropic).
   */
  inputExamples?: ReadonlyArray<Record<string, unknown>>
  /**
   * The permission modes in which the tool is offered at all (say, a plan-exit tool only in
   * `plan`). Default: every mode. A tool left out is never sent, searched or run.
   */
  modes?: readonly string[]
  /**
   * A one-line summary for people (UIs, logs). May read the pool's context and may be async: the
   * kernel resolves it when it assembles the pool (docs/pool.md §Descriptions).
   */
  description(context: DescribeContext): string | Promise<string>
  /**
   * The model-facing description: what it does, when to use it and when not, constraints, what
   * comes back. Defaults to `description()`. May read the pool's context and may be async, as
   * `description`; the text the model was sent is in the log (session.configured, then
   * `tools.described` when it changes).
   */
  prompt?(context: DescribeContext): string | Promise<string>
  /** Strict zod object (a non-strict one is made strict). Give this or `inputJSONSchema`. */
  inputSchema?: z.ZodType<I> | LazySchema<z.ZodType<I>>
  inputJSONSchema?: JsonSchemaObject
  outputSchema?: z.ZodType<O> | LazySchema<z.ZodType<O>>
  call: ToolCall<I, O, P>
  validateInput?(input: I, context: ToolContext): ValidationResult | Promise<ValidationResult>
  checkPermissions?(input: I, context: ToolContext): PermissionResult<I> | Promise<PermissionResult<I>>
  isEnabled?(): boolean
  /**
   * The call needs a person's answer (AskUserQuestion): no allow from a rule, a mode
   * (bypassPermissions included), a hook or a session grant settles it — its own
   * `checkPermissions` asks, as Claude Code's `requiresUserInteraction`. Deny rules still deny.
   * Default false.
   */
  requiresUserInteraction?(): boolean
  isConcurrencySafe?(input: I, context?: PredicateContext): boolean
  isReadOnly?(input: I, context?: PredicateContext): boolean
  isDestructive?(input: I, context?: PredicateContext): boolean
  isOpenWorld?(input: I, context?: PredicateContext): boolean
  interruptBehavior?(): InterruptBehavior
  /**
   * The call's deadline in milliseconds, from the moment the tool starts, covering every attempt
   * of a retry. On expiry a 'cancel' tool's signal is aborted and the call ends at once; a
   * 'block' tool is given the kernel's grace (`timeoutGraceMs`) to finish, then abandoned. Either
   * way the model reads a `timed_out` result. Default: the kernel's `toolTimeoutMs` (none unless
   * the app sets one); `Infinity`: never a kernel deadline (a tool with its own, as Bash and MCP).
   */
  timeoutMs?: number
  /**
   * Running the tool twice with the same input has the effect of running it once (a PUT, an
   * upsert, a lookup): what lets it declare `retry`. Default false.
   */
  idempotent?: boolean
  /**
   * Attempts again when the tool throws: only for a tool that is read-only (`isReadOnly`; checked
   * per input at call time, fail-closed) or `idempotent` — `buildTool` refuses it otherwise.
   */
  retry?: RetryPolicy
  /** When this tool fails inside a parallel batch, its running siblings are aborted (Bash declares it). */
  cascadesOnFailure?: boolean
  /** Past this many characters the output is persisted and the model gets a preview. `Infinity` = never. */
  maxResultSizeChars?: number
  mapToolResultToToolResultBlockParam?(output: O, toolUseId: string): ToolResultBlock
  userFacingName?(input?: I): string
  /**
   * What the call is doing, for the app's UI while it runs and in its permission prompt:
   * `Reading src/a.ts`, `Running npm test`. Default: `Running <userFacingName>`.
   */
  activityDescription?(input: I): string
  /** The file path the input refers to, for path-based permission rules. */
  getPath?(input: I): string | undefined
  /**
   * The shell command the input carries, for tools that run one (Bash): `Tool(specifier)` rules
   * then match the simple commands the shell analysis finds in it, never the raw text.
   */
  shellCommand?(input: I): string | undefined
  /**
   * The host name the input reaches (WebFetch's URL), for `Tool(domain:…)` rules: such a tool
   * takes `domain:` specifiers only (docs/decisions/tools.md #131).
   */
  getHost?(input: I): string | undefined
  category?: string
}

/** A tool with every default filled in: what the kernel runs. */
// `any` defaults: a registry holds tools of every input type, which `unknown` would not accept
// (parameters are contravariant).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface Tool<I = any, O = any, P = any> extends Required<
  Omit<
    ToolDef<I, O, P>,
    | 'inputSchema'
    | 'inputJSONSchema'
    | 'outputSchema'
    | 'validateInput'
    | 'getPath'
    | 'shellCommand'
    | 'getHost'
    | 'category'
    | 'searchHint'
    | 'modes'
    | 'timeoutMs'
    | 'retry'
    | 'requiresUserInteraction'
  >
> {
  /** Optional on a tool not made by `buildTool` (which fills it in): absent means false. */
  readonly requiresUserInteraction?: () => boolean
  readonly timeoutMs: number | undefined
  readonly retry: RetryPolicy | undefined
  readonly modes: readonly string[] | undefined
  readonly inputSchema: z.ZodType<I> | undefined
  readonly inputJSONSchema: JsonSchemaObject | undefined
  readonly outputSchema: z.ZodType<O> | undefined
  readonly validateInput: ToolDef<I, O, P>['validateInput']
  readonly getPath: ToolDef<I, O, P>['getPath']
  readonly shellCommand: ToolDef<I, O, P>['shellCommand']
  readonly getHost: ToolDef<I, O, P>['getHost']
  readonly category: string | undefined
  readonly searchHint: string | undefined
  /**
   * Other names permission rules and hook matchers know this tool by, besides `name`: an MCP
   * tool's full `mcp__<server>__<tool>` before it was cut to 64 characters and hashed, so a rule or
   * a guard hook written for the name the server lists applies to the name that runs.
   */
  readonly ruleNames?: readonly string[]
}
