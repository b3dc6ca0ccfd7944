/**
 * The event union: every fact the kernel records. One zod discriminated union on `type`, each
 * member carrying the envelope. Logs are trust boundaries when read back, so readers
 * `safeParse` every line against this schema.
 */
import { z } from 'zod'
import { lazyObject } from '../util/lazy-object.js'

/** Version of the event envelope. Bump it, and add an upgrade path, when a stored log would no longer replay. */
export const EVENT_VERSION = 2

const envelope = {
  v: z.literal(EVENT_VERSION),
  seq: z.number().int().nonnegative(),
  at: z.number(),
  turnId: z.string(),
  /**
   * Set on every event of a child turn (a subagent's, `context.runChild`): the parent call it runs
   * under (docs/subagents.md). Absent on the session's own turns.
   */
  parentToolUseId: z.string().optional(),
}
const toolEnvelope = { ...envelope, toolUseId: z.string() }

export const TextBlockSchema = z.object({ type: z.literal('text'), text: z.string() })
export const ImageBlockSchema = z.object({
  type: z.literal('image'),
  source: z.object({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
})
/** A deferred tool ToolSearch found: the Anthropic API expands it into the tool's definition. */
export const ToolReferenceBlockSchema = z.object({ type: z.literal('tool_reference'), tool_name: z.string() })
/** The Anthropic `tool_result` content block, as the model receives it. */
export const ToolResultBlockSchema = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.union([TextBlockSchema, ImageBlockSchema, ToolReferenceBlockSchema]))]),
  is_error: z.boolean().optional(),
})
export type ToolResultBlock = z.infer<typeof ToolResultBlockSchema>

/** A `tool_result` block; `is_error` is present only when true, as the API writes it. */
export function toolResultBlock(
  toolUseId: string,
  content: ToolResultBlock['content'],
  isError: boolean,
): ToolResultBlock {
  return isError
    ? { type: 'tool_result', tool_use_id: toolUseId, content, is_error: true }
    : { type: 'tool_result', tool_use_id: toolUseId, content }
}

/** The nine steps of a tool call, in order. */
export const STEPS = [
  'parse',
  'validate',
  'preHook',
  'permission',
  'call',
  'budget',
  'map',
  'postHook',
  'emit',
] as const
export type Step = (typeof STEPS)[number]
const StepSchema = z.enum(STEPS)

/** Why a call ended early, as data: the messages projection and telemetry read `code`. */
export const FailureCodeSchema = z.enum([
  'unknown_tool',
  'tool_disabled',
  'invalid_json',
  'not_an_object',
  'invalid_input',
  'validate_input',
  'hook_blocked',
  'permission_denied',
  'tool_error',
  'cancelled',
  'interrupted',
  'internal',
  'timed_out',
])
export type FailureCode = z.infer<typeof FailureCodeSchema>

const PermissionBehaviorSchema = z.enum(['allow', 'deny', 'ask'])
const DecisionSourceSchema = z.enum(['tool', 'rule', 'mode', 'hook', 'user', 'default'])

/**
 * What a call says about itself (src/tools/call-flags.ts): recorded with its permission decision,
 * for the app's UI and telemetry. Optional: older logs lack it.
 */
const CallFlagsSchema = z.object({
  readOnly: z.boolean(),
  destructive: z.boolean(),
  openWorld: z.boolean(),
  userFacingName: z.string(),
  activity: z.string(),
})

/**
 * Every event the log holds, as one zod union on `type`. Built on first use (decision 171): the
 * union of ~45 object schemas is the largest thing `import('toolkernel')` built, and a kernel
 * that only writes its log never parses one.
 */
export const KernelEventSchema = lazyObject(() => kernelEventUnion())

const kernelEventUnion = () =>
  z.discriminatedUnion('type', [
    z.object({
      ...envelope,
      type: z.literal('turn.started'),
      mode: z.enum(['batch', 'stream']),
      maxConcurrency: z.number().int().positive(),
      /** Which calls could start before the message ended: what replay needs to decide the same way. */
      earlyStart: z.enum(['safe', 'none', 'all']).optional(),
      /** The kernel's working directory (path rules are relative to it). */
      cwd: z.string().optional(),
      /** The permission mode and rules in force, so a log replays with the configuration it was recorded with. */
      permissions: z
        .object({
          mode: z.string(),
          allow: z.array(z.string()),
          ask: z.array(z.string()),
          deny: z.array(z.string()),
          /** Allow rules that hold only for calls run in the OS sandbox (issue 30). */
          allowSandboxed: z.array(z.string()).optional(),
        })
        .optional(),
      /**
       * A child turn (docs/subagents.md): the parent call's turn, the tools the child may call and
       * the rules it asked for (`permissions` holds the effective ones, narrowed by the parent's).
       */
      child: z
        .object({
          parentTurnId: z.string(),
          tools: z.array(z.string()),
          rules: z.object({
            mode: z.string().optional(),
            allow: z.array(z.string()).optional(),
            ask: z.array(z.string()).optional(),
            deny: z.array(z.string()).optional(),
          }),
          messageBudgetChars: z.number().nonnegative().optional(),
          /** What the child's model was told (`runChild`'s `prompt`): configuration, not a decision. */
          prompt: z.string().optional(),
        })
        .optional(),
    }),
    /**
     * The session's configuration, logged with the first turn of each kernel (right after its
     * turn.started): the tools and their fixed traits, hooks, rules, mode, cwd, limits and the
     * toolkernel version, so any log replays standalone with exactly its own tools.
     */
    z.object({
      ...envelope,
      type: z.literal('session.configured'),
      toolkernel: z.string(),
      cwd: z.string(),
      mode: z.string(),
      rules: z.object({
        allow: z.array(z.string()),
        ask: z.array(z.string()),
        deny: z.array(z.string()),
        /** Allow rules that hold only for calls run in the OS sandbox (issue 30). */
        allowSandboxed: z.array(z.string()).optional(),
      }),
      limits: z.object({
        maxConcurrency: z.number().int().positive(),
        messageBudgetChars: z.number().nonnegative(),
        progressLogChars: z.number().nonnegative().nullable(),
        /** The kernel's deadline for tools without their own (`toolTimeoutMs`), when set. */
        toolTimeoutMs: z.number().positive().optional(),
        /** The grace a 'block' tool gets past its deadline (`timeoutGraceMs`), when a deadline is set. */
        timeoutGraceMs: z.number().nonnegative().optional(),
      }),
      hooks: z.array(z.object({ event: z.string(), matcher: z.string(), hooks: z.array(z.string()) })),
      /** The app can be asked (it gave canUseTool); without it "ask" is denied unasked. Absent: true. */
      asks: z.boolean().optional(),
      /**
       * What an "ask" nobody answers in the turn does: `park` (the call waits for `kernel.answer`)
       * or `deny`. Absent (logs before 0.4): deny.
       */
      approvals: z.enum(['park', 'deny']).optional(),
      /** The pool's configuration (only when it is dynamic: deferred tools or tool sources), for replay. */
      pool: z
        .object({
          format: z.string(),
          deferral: z.object({
            mode: z.string(),
            contextTokens: z.number(),
            share: z.number(),
            maxTools: z.number(),
          }),
        })
        .optional(),
      /** The OS sandbox Bash and command hooks ran in (issue 30), when the app configured one; each tool's own. */
      sandbox: z
        .object({
          mode: z.string(),
          network: z.string(),
          writable: z.array(z.string()),
          /** With network 'allowDomains': the domains its proxy lets through. */
          allowDomains: z.array(z.string()).optional(),
          tools: z
            .record(
              z.string(),
              z.object({
                mode: z.string(),
                network: z.string(),
                writable: z.array(z.string()),
                allowDomains: z.array(z.string()).optional(),
              }),
            )
            .optional(),
        })
        .optional(),
      tools: z.array(
        z.object({
          name: z.string(),
          aliases: z.array(z.string()),
          /** sha256 of the input JSON Schema the model was given (first 16 hex digits). */
          schema: z.string(),
          interrupt: z.enum(['cancel', 'block']),
          cascades: z.boolean(),
          validates: z.boolean(),
          maxResultSizeChars: z.number().nullable(),
          /** The pool defers it (shouldDefer, not alwaysLoad): stand-ins defer the same way. */
          defer: z.literal(true).optional(),
          /** It needs a person's answer (`requiresUserInteraction`): a stand-in is not settled by an allow either. */
          person: z.literal(true).optional(),
          /** What the model was sent of it, so stand-ins give the same pool.assembled hash and ToolSearch answers. */
          definition: z
            .object({
              description: z.string(),
              inputSchema: z.record(z.string(), z.unknown()),
              searchHint: z.string().optional(),
              inputExamples: z.array(z.record(z.string(), z.unknown())).optional(),
            })
            .optional(),
        }),
      ),
    }),
    /** A log cut off mid-turn was closed: these calls got interrupted results. */
    z.object({ ...envelope, type: z.literal('turn.recovered'), reason: z.string(), open: z.array(z.string()) }),
    z.object({ ...envelope, type: z.literal('turn.aborted'), reason: z.string() }),
    z.object({ ...envelope, type: z.literal('turn.ended'), stopReason: z.string().nullable() }),
    z.object({ ...envelope, type: z.literal('turn.discarded'), reason: z.string() }),
    z.object({ ...envelope, type: z.literal('turn.completed'), results: z.number().int().nonnegative() }),
    z.object({
      ...toolEnvelope,
      type: z.literal('tool.requested'),
      index: z.number().int().nonnegative(),
      name: z.string(),
      input: z.unknown(),
      /** Why the input could not be read (malformed or truncated JSON); `input` is then the raw text. */
      inputError: z.string().optional(),
    }),
    z.object({ ...toolEnvelope, type: z.literal('tool.queued'), safe: z.boolean(), reason: z.string().optional() }),
    z.object({
      ...toolEnvelope,
      type: z.literal('tool.dispatched'),
      batch: z.number().int().nonnegative(),
      running: z.number().int().nonnegative(),
    }),
    z.object({
      ...toolEnvelope,
      type: z.literal('tool.parsed'),
      tool: z.string(),
      /** Hooks matched this call (recorded so replay walks the same steps). */
      hooks: z.object({ pre: z.boolean(), post: z.boolean() }).optional(),
    }),
    z.object({ ...toolEnvelope, type: z.literal('tool.validated') }),
    z.object({
      ...toolEnvelope,
      type: z.literal('tool.hooked'),
      phase: z.enum(['pre', 'post']),
      outcome: z.enum(['continue', 'block']),
      reason: z.string().optional(),
      /** A PreToolUse hook's say in the permission step. */
      decision: PermissionBehaviorSchema.optional(),
      /** Set when a hook rewrote the input (which was validated again). */
      updatedInput: z.unknown().optional(),
      additionalContext: z.string().optional(),
      /** Messages for the user, not the model. */
      systemMessages: z.array(z.string()).optional(),
    }),
    /** One hook's outcome: what replay reads back instead of running the hook. */
    z.object({
      ...toolEnvelope,
      type: z.literal('hook.finished'),
      phase: z.enum(['pre', 'post']),
      hook: z.string(),
      outcome: z.enum(['continue', 'block', 'error']),
      exitCode: z.number().int().nullable().optional(),
      decision: PermissionBehaviorSchema.optional(),
      reason: z.string().optional(),
      updatedInput: z.unknown().optional(),
      additionalContext: z.string().optional(),
      systemMessage: z.string().optional(),
      stopReason: z.string().optional(),
      error: z.string().optional(),
    }),
    z.object({
      ...toolEnvelope,
      type: z.literal('permission.requested'),
      tool: z.string(),
      reason: z.string(),
      suggestions: z.array(z.string()),
    }),
    z.object({
      ...toolEnvelope,
      type: z.literal('permission.granted'),
      tool: z.string(),
      scope: z.enum(['call', 'tool', 'rule']),
      fingerprint: z.string().optional(),
      rule: z.string().optional(),
    }),
    z.object({
      ...toolEnvelope,
      type: z.literal('tool.permitted'),
      behavior: PermissionBehaviorSchema,
      source: DecisionSourceSchema,
      reason: z.string().optional(),
      updatedInput: z.unknown().optional(),
      flags: CallFlagsSchema.optional(),
    }),
    z.object({ ...toolEnvelope, type: z.literal('tool.started'), interrupt: z.enum(['cancel', 'block']) }),
    z.object({ ...toolEnvelope, type: z.literal('tool.progress'), data: z.unknown() }),
    z.object({
      ...toolEnvelope,
      type: z.literal('tool.completed'),
      /** What the tool returned; absent when it went to the result store (`persisted`). */
      output: z.unknown().optional(),
      /** The output was too large for the log: the tool.budgeted that follows names its file. */
      persisted: z.literal(true).optional(),
    }),
    z.object({
      ...toolEnvelope,
      type: z.literal('tool.errored'),
      message: z.string(),
      /** The thrown value's class from a closed set (classifyToolError): an errno code, a name, `Error`. */
      errorClass: z
        .string()
        .regex(/^[A-Za-z0-9_.:-]{1,64}$/)
        .optional(),
      /** How many attempts the call made, when its tool declares retries (the message says so too). */
      attempts: z.number().int().positive().optional(),
    }),
    z.object({
      ...toolEnvelope,
      type: z.literal('tool.budgeted'),
      /** Where the full output was saved; absent when it was not (`error` says why). */
      path: z.string().optional(),
      chars: z.number().int().nonnegative(),
      /** Why the output could not be saved (the store failed, the turn was interrupted first). */
      error: z.string().optional(),
    }),
    z.object({
      ...toolEnvelope,
      type: z.literal('tool.rejected'),
      step: StepSchema,
      code: FailureCodeSchema,
      message: z.string(),
    }),
    z.object({
      ...toolEnvelope,
      type: z.literal('tool.cancelled'),
      step: StepSchema,
      reason: z.string(),
      /** Stopped at `call` before its tool ran (at its write-ahead fence): cancelled, not interrupted. */
      beforeRun: z.literal(true).optional(),
    }),
    z.object({
      ...toolEnvelope,
      type: z.literal('tool.mapped'),
      isError: z.boolean(),
      /** The output could not be turned into a result block: why (the call then failed at map). */
      failure: z.string().optional(),
    }),
    z.object({ ...toolEnvelope, type: z.literal('tool.cascaded'), siblings: z.array(z.string()) }),
    /**
     * The tool pool a turn began with (only when the pool is dynamic: deferred tools or tool
     * sources): what the model was offered in full, deferred and loaded, and a hash of the `tools`
     * parameter in `format`, so a log says exactly what the model saw.
     */
    z.object({
      ...envelope,
      type: z.literal('pool.assembled'),
      format: z.string(),
      visible: z.array(z.string()),
      deferred: z.array(z.string()),
      loaded: z.array(z.string()),
      /** sha256 of the serialised `tools` parameter, first 16 hex digits. */
      hash: z.string(),
      bytes: z.number().int().nonnegative(),
      /** The automatic threshold: estimated tokens of the deferrable definitions, the limits, the outcome. */
      threshold: z.object({
        tokens: z.number().nonnegative(),
        maxTokens: z.number().nonnegative(),
        count: z.number().int().nonnegative(),
        maxCount: z.number().nonnegative(),
        deferred: z.boolean(),
      }),
    }),
    /** A deferred tool was loaded: its schema goes with every later request (resume and replay keep it). */
    z.object({
      ...envelope,
      type: z.literal('tool.loaded'),
      name: z.string(),
      how: z.enum(['search', 'select', 'call', 'app']),
      /**
       * The tool_use that loaded it (ToolSearch's, or the unloaded call itself); absent when the
       * app did. Not `toolUseId`: the event belongs to the turn, not to that call's lifecycle.
       */
      loadedBy: z.string().optional(),
    }),
    /** The tools of a source changed (the app registered or removed some, a server connected), between turns. */
    z.object({
      ...envelope,
      type: z.literal('pool.changed'),
      source: z.string(),
      added: z.array(z.string()),
      removed: z.array(z.string()),
      /** Offered tools left out because their name was already taken. */
      skipped: z.array(z.string()).optional(),
      /** What each added name stands for (an MCP source: server and tool as listed): replay resolves the same names. */
      names: z.array(z.object({ name: z.string(), server: z.string(), tool: z.string() })).optional(),
      /** The source's withheld tools and why (e.g. a schema no model API takes), when that list changed. */
      withheld: z.array(z.object({ server: z.string(), tool: z.string(), reason: z.string() })).optional(),
      /** Tools whose `isEnabled()` turned false (or was false at the first turn): left out of the pool. */
      disabled: z.array(z.string()).optional(),
      /** Tools whose `isEnabled()` turned true again. */
      enabled: z.array(z.string()).optional(),
    }),
    z.object({
      ...toolEnvelope,
      type: z.literal('tool.result'),
      outcome: z.enum(['success', 'error', 'cancelled']),
      block: ToolResultBlockSchema,
    }),
    // Calls that wait for a person (docs/approvals.md): a call parks at its permission step, the
    // turn settles with it pending, and an answer — in this process or another — continues it.
    /**
     * An "ask" nobody could answer in the turn (no `canUseTool`, or it deferred): the call waits at
     * its permission step for `kernel.answer`. `input` is exactly the input the approval is for,
     * `digest` binds an answer to it.
     */
    z.object({
      ...toolEnvelope,
      type: z.literal('permission.pending'),
      tool: z.string(),
      input: z.unknown(),
      digest: z.string(),
      reason: z.string(),
      /** Who asked: a rule, a hook, the tool's own check, or a guard every mode keeps (`default`). */
      source: DecisionSourceSchema,
      /** The rule that asked, when one did. */
      rule: z.string().optional(),
      suggestions: z.array(z.string()),
      flags: CallFlagsSchema.optional(),
    }),
    /** The app's answer to a pending call (`kernel.answer`), bound to the digest of the input it saw. */
    z.object({
      ...toolEnvelope,
      type: z.literal('permission.answered'),
      digest: z.string(),
      behavior: z.enum(['allow', 'deny']),
      /** The denial's message for the model. */
      message: z.string().optional(),
      /** Input the person edited (validated again before the call). */
      updatedInput: z.unknown().optional(),
      /** Allowed for the session: the grant's scope (and rule). */
      grant: z.object({ scope: z.enum(['call', 'tool', 'rule']), rule: z.string().optional() }).optional(),
    }),
    /**
     * The turn settled with calls waiting for an answer (`pending`) and calls behind them not yet
     * started (`waiting`); everything else has its result. The turn is not over: no turn.completed.
     */
    z.object({
      ...envelope,
      type: z.literal('turn.parked'),
      pending: z.array(z.string()),
      waiting: z.array(z.string()),
    }),
    /** A parked turn goes on: `answered` is the call whose answer resumed it. */
    z.object({ ...envelope, type: z.literal('turn.resumed'), answered: z.string() }),
    // Deadlines and retries (docs/design.md §Deadlines and retries).
    /**
     * The call ran out of time: its deadline (`timeoutMs`, covering every attempt) passed — for a
     * 'block' tool, and the grace after it too. Ends the call with `timed_out`.
     */
    z.object({
      ...toolEnvelope,
      type: z.literal('tool.timed_out'),
      timeoutMs: z.number().positive(),
      /** The grace a 'block' tool was given past its deadline before it was abandoned. */
      graceMs: z.number().nonnegative().optional(),
      /** How many attempts had started, when the tool declares retries. */
      attempts: z.number().int().positive().optional(),
    }),
    /** An attempt of a tool that declares retries failed; the next starts after `delayMs` (the backoff). */
    z.object({
      ...toolEnvelope,
      type: z.literal('tool.retrying'),
      /** The attempt that failed (1 is the first run). */
      attempt: z.number().int().positive(),
      delayMs: z.number().nonnegative(),
      /** What it threw, as the model would read it (`describeError`). */
      error: z.string(),
      errorClass: z
        .string()
        .regex(/^[A-Za-z0-9_.:-]{1,64}$/)
        .optional(),
    }),
    /** The backoff passed: attempt `attempt` (2 or more) of the tool starts now. */
    z.object({ ...toolEnvelope, type: z.literal('tool.restarted'), attempt: z.number().int().min(2) }),
    // --- The session that changes as it goes (issue 29 item 5; docs/session-context.md) ---
    /**
     * The session's context changed: the working directory, environment entries for child
     * processes, app data, the permission mode. From a tool (`toolUseId` set: what its call returned,
     * `requested`, applied only when the call ran alone) or from the app (`kernel.setMode`, recorded
     * with the next turn). The top-level fields are what was applied; `dropped` says what was not, and why.
     */
    z.object({
      ...envelope,
      type: z.literal('session.changed'),
      source: z.enum(['tool', 'app']),
      /**
       * The call whose result carried the change. Not `toolUseId`: the event is the session's,
       * not that call's step.
       */
      changedBy: z.string().optional(),
      /** The change as the tool returned it (replay hands it back to the tool's stand-in). */
      requested: z.record(z.string(), z.unknown()).optional(),
      cwd: z.string().optional(),
      /** Entries set (a string) or removed (null). */
      env: z.record(z.string(), z.string().nullable()).optional(),
      /** App data entries set (a value) or removed (null). */
      data: z.record(z.string(), z.unknown()).optional(),
      mode: z.string().optional(),
      /** The mode before this change, when the mode changed. */
      previousMode: z.string().optional(),
      dropped: z.array(z.object({ field: z.string(), reason: z.string() })).optional(),
    }),
    // Background shells (Bash run_in_background, BashOutput, KillShell; docs/decisions/processes.md
    // "Background shells"). Outside any call's lifecycle, so in the turn envelope: `turnId` is the
    // turn that started the shell, also for its later reads and its exit (which may come after that
    // turn completed); the call that acted is named in `startedBy` / `readBy` / `killedBy`.
    z.object({
      ...envelope,
      type: z.literal('shell.started'),
      shellId: z.string(),
      command: z.string(),
      startedBy: z.string(),
      cwd: z.string(),
      pid: z.number().int().positive().optional(),
    }),
    z.object({
      ...envelope,
      type: z.literal('shell.read'),
      shellId: z.string(),
      readBy: z.string(),
      /** Characters of new output the read returned (after the filter). */
      chars: z.number().int().nonnegative(),
      /** Characters of unread output dropped to keep memory bounded since the last read. */
      droppedChars: z.number().int().nonnegative().optional(),
      running: z.boolean(),
    }),
    z.object({
      ...envelope,
      type: z.literal('shell.exited'),
      shellId: z.string(),
      exitCode: z.number().int().nullable(),
      signal: z.string().nullable(),
      /** By itself, stopped by KillShell, or stopped because the kernel was closed. */
      how: z.enum(['exited', 'killed', 'closed']),
      killedBy: z.string().optional(),
      /** Why it could not start, when it could not. */
      error: z.string().optional(),
    }),
    // Descriptions that read the pool's context or are async (docs/decisions/tools.md #153): the
    // texts the model is sent from this turn on, for tools whose text changed since the log last
    // recorded it (session.configured, or an earlier tools.described). Recorded at the turn's start.
    z.object({
      ...envelope,
      type: z.literal('tools.described'),
      tools: z.array(
        z.object({
          name: z.string(),
          /** The model-facing text as sent (the tool's `prompt()`). */
          description: z.string(),
        }),
      ),
    }),
    // Largest-first message budget (docs/decisions/results.md, 154): results that arrive together.
    /**
     * A call's tool returned while siblings of its turn were still running: its result waits for
     * theirs, so the message budget is decided for them together. Where the log has its answer.
     */
    z.object({ ...toolEnvelope, type: z.literal('budget.held'), chars: z.number().int().nonnegative() }),
    /**
     * Results that waited for each other, decided together: the calls in tool_use order, and those
     * whose output goes to the result store — the largest first, until the rest fit the message.
     */
    z.object({
      ...envelope,
      type: z.literal('budget.decided'),
      group: z.array(z.string()),
      persisted: z.array(z.string()),
    }),
    // Session snapshots (issue 33; docs/decisions/stores.md, 166): what a resume needs of the log
    // before it, so a session store reads from the last snapshot on, not the whole stream.
    /**
     * The log up to seq `upTo`, compacted: `carried` holds, in seq order, the events of that prefix
     * every fold at resume reads — the session facts (grants, `session.changed` — mode, cwd, env,
     * data —, the first `tool.loaded` of each tool, pool changes, descriptions, the last
     * `session.configured`, each framed by its turn's start and end), and every event of the turns
     * not over (parked approvals, the turn under way) and of the last turn. Each is checked against
     * this union when read back (src/events/snapshot.ts); `format` is the layout of `carried`.
     */
    z.object({
      ...envelope,
      type: z.literal('session.snapshot'),
      format: z.number().int().positive(),
      upTo: z.number().int().nonnegative(),
      /** Top-level turns the log had started by then (a count people read; resume does not use it). */
      turns: z.number().int().nonnegative(),
      carried: z.array(z.unknown()),
    }),
  ])

export type KernelEvent = z.infer<typeof KernelEventSchema>
export type KernelEventType = KernelEvent['type']
export type EventOf<T extends KernelEventType> = Extract<KernelEvent, { type: T }>

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never
/** An event as its producer writes it: the log stamps `v`, `seq` and `at`. */
export type KernelEventInput = DistributiveOmit<KernelEvent, 'v' | 'seq' | 'at'>
