/**
 * Tools for replaying a log whose tools this process does not have: each stand-in answers the
 * kernel's questions (safety, interrupt behaviour, its own permission verdict, which inputs its
 * schema refused) as the log recorded them for the same input. Replay with the real tools
 * (`--tools`) to check them too.
 */
import { hookContextText } from '../actors/tool-call/call-scope.js'
import { z } from 'zod'
import { buildTool, defaultMapper } from '../tools/build-tool.js'
import type { Tool, ToolDef } from '../tools/tool.types.js'
import type { RetryPolicy } from '../tools/retry.js'
import type { EventOf, KernelEvent, ToolResultBlock } from '../events/event.schema.js'
import { schemaFingerprint } from '../tools/tool-manifest.js'
import { fullName } from '../mcp/names.js'
import { canonicalJson } from '../util/canonical-json.js'
import { callKey } from '../events/call-key.js'
import { TOOL_SEARCH_NAME } from '../tools/builtin/tool-search.tool.js'
import { describeError, validateInputPrefix } from '../tools/result-text.js'
import { stripPrefix } from '../replay/recorded.js'
import type { JsonSchemaObject } from '../tools/tool.types.js'

/**
 * The tools to replay a log with. A log that records its session's tools (session.configured)
 * replays with exactly those: an app's own tool named like a built-in (`Read`) is not the
 * built-in unless its schema fingerprint says so, and tools the log never had are not offered.
 * `given` (the app's real tools, `--tools`) win by name. Older logs fall back to the tools given
 * or built in, plus stand-ins for the rest. A deferring pool's ToolSearch is left out: the
 * replaying kernel adds its own, bound to its pool.
 */
export function toolsForReplay(
  events: readonly KernelEvent[],
  given: readonly Tool[] | undefined,
  builtins: readonly Tool[],
): { tools: Tool[]; standIns: string[] } {
  const configured = events.find((e): e is EventOf<'session.configured'> => e.type === 'session.configured')
  if (configured === undefined) {
    const known = [...(given ?? builtins)]
    const stand = standIns(events, known)
    return { tools: [...known, ...stand], standIns: stand.map((t) => t.name) }
  }
  const byName = new Map((given ?? []).map((t) => [t.name, t]))
  const builtin = new Map(builtins.map((t) => [t.name, t]))
  const tools: Tool[] = []
  const stood: string[] = []
  for (const manifest of configured.tools) {
    if (configured.pool !== undefined && manifest.name === TOOL_SEARCH_NAME) continue
    const real = byName.get(manifest.name) ?? builtin.get(manifest.name)
    if (real !== undefined && (byName.has(manifest.name) || schemaFingerprint(real) === manifest.schema)) {
      tools.push(real)
      continue
    }
    tools.push(standIn(events, manifest.name, manifest))
    stood.push(manifest.name)
  }
  return { tools, standIns: stood }
}

/**
 * Stand-ins for the tools an older log (no session.configured) shows the session had: each one a
 * call found (`tool.parsed`), and each one a call was queued for as a known tool — a call cut
 * off by an abort before its parse step still names a tool that existed.
 */
export function standIns(events: readonly KernelEvent[], known: readonly Tool[]): Tool[] {
  const have = new Set(known.flatMap((t) => [t.name, ...t.aliases]))
  const existed = new Set<string>()
  const aliases = new Set<string>()
  const requested = new Map<string, string>()
  for (const e of events) {
    if (!('toolUseId' in e)) continue
    const name = requested.get(callKey(e.turnId, e.toolUseId))
    if (e.type === 'tool.requested') requested.set(callKey(e.turnId, e.toolUseId), e.name)
    if (e.type === 'tool.parsed') existed.add(e.tool)
    // A name the parse step resolved to another tool is that tool's alias, not a tool of its own.
    if (e.type === 'tool.parsed' && name !== undefined && name !== e.tool) aliases.add(name)
    if (e.type === 'tool.queued' && name !== undefined && e.reason !== 'unknown tool') existed.add(name)
  }
  return [...existed].filter((name) => !have.has(name) && !aliases.has(name)).map((name) => standIn(events, name))
}

/** A tool as session.configured recorded it (see ToolManifest). */
type RecordedManifest = EventOf<'session.configured'>['tools'][number]

/** A pre-hook or a permission answer that rewrote the call's input (checked against the schema again). */
function rewrote(e: KernelEvent): e is KernelEvent & { updatedInput: unknown } {
  const rewriting =
    ((e.type === 'hook.finished' || e.type === 'tool.hooked') && e.phase === 'pre') || e.type === 'tool.permitted'
  return rewriting && e.updatedInput !== undefined
}

/**
 * What the log recorded of one tool's answers, by input: concurrency safety, interrupt behaviour,
 * its permission verdict, the inputs its schema refused (`invalid_input`, at the validate step or
 * after a rewrite) and its own validator's verdicts.
 */
function answersOf(events: readonly KernelEvent[], name: string, names: ReadonlySet<string>) {
  const inputs = new Map<string, unknown>()
  const safe = new Map<string, boolean>()
  let interrupt: 'cancel' | 'block' | undefined
  const verdict = new Map<string, { behavior: 'allow' | 'deny' | 'ask'; message: string }>()
  const refused = new Set<string>()
  const validation = new Map<string, { result: true } | { result: false; message: string }>()
  // The input each call's checks last saw: as requested, or as a hook or a permission rewrote it.
  const checking = new Map<string, unknown>()
  for (const e of events) {
    if (e.type === 'tool.requested' && names.has(e.name)) inputs.set(callKey(e.turnId, e.toolUseId), e.input)
    if (!('toolUseId' in e)) continue
    const call = callKey(e.turnId, e.toolUseId)
    if (!inputs.has(call)) continue
    const key = canonicalJson(inputs.get(call))
    if (e.type === 'tool.queued') safe.set(key, e.safe)
    if (e.type === 'tool.started') interrupt = e.interrupt
    if (e.type === 'tool.permitted' && e.source === 'tool')
      verdict.set(key, { behavior: e.behavior, message: e.reason ?? '' })
    // A person was asked and answered (tool.permitted then says 'user'): what asked is consulted
    // only when no rule, mode, guard or hook settled the call first — then it was the tool's check.
    if ((e.type === 'permission.requested' || e.type === 'permission.pending') && !verdict.has(key))
      verdict.set(key, { behavior: 'ask', message: e.reason })
    if (rewrote(e)) checking.set(call, e.updatedInput)
    if (e.type === 'tool.rejected' && e.code === 'invalid_input')
      refused.add(canonicalJson(checking.has(call) ? checking.get(call) : inputs.get(call)))
    if (e.type === 'tool.validated') validation.set(key, { result: true })
    if (e.type === 'tool.rejected' && e.code === 'validate_input')
      validation.set(key, { result: false, message: stripPrefix(e.message, validateInputPrefix(name)) })
  }
  return { safe, interrupt, verdict, refused, validation }
}

/**
 * The result blocks the tool's own mapper made, by tool_use id in log order: calls the log shows
 * mapped (`tool.mapped`) and not persisted (`tool.budgeted`), so the block is the mapper's. The
 * stand-in gives them back instead of mapping anew: an app's mapper (every MCP tool has one) is
 * code the log does not have. The hooks' context the kernel added after the mapper's content is
 * taken off again: the kernel adds it anew in replay.
 */
function mappedBlocksOf(events: readonly KernelEvent[], names: ReadonlySet<string>): Map<string, ToolResultBlock[]> {
  const calls = new Set<string>()
  const mapped = new Set<string>()
  const budgeted = new Set<string>()
  const contexts = new Map<string, string[]>()
  const blocks = new Map<string, ToolResultBlock[]>()
  for (const e of events) {
    if (e.type === 'tool.requested' && names.has(e.name)) calls.add(callKey(e.turnId, e.toolUseId))
    if (!('toolUseId' in e) || !calls.has(callKey(e.turnId, e.toolUseId))) continue
    const key = callKey(e.turnId, e.toolUseId)
    if (e.type === 'tool.mapped') mapped.add(key)
    if (e.type === 'tool.budgeted') budgeted.add(key)
    if (e.type === 'tool.hooked' && e.additionalContext !== undefined)
      contexts.set(key, [...(contexts.get(key) ?? []), e.additionalContext])
    if (e.type === 'tool.result' && mapped.has(key) && !budgeted.has(key))
      blocks.set(e.toolUseId, [...(blocks.get(e.toolUseId) ?? []), withoutContext(e.block, contexts.get(key) ?? [])])
  }
  return blocks
}

/** `block` without the hook context parts the kernel appended for `contexts` (see withContext). */
function withoutContext(block: ToolResultBlock, contexts: readonly string[]): ToolResultBlock {
  if (contexts.length === 0 || typeof block.content === 'string') return block
  const added = contexts.map(hookContextText)
  const kept = block.content.length - added.length
  const tail = block.content.slice(kept)
  const matches = kept >= 0 && tail.every((part, i) => part.type === 'text' && part.text === added[i])
  return matches ? { ...block, content: block.content.slice(0, kept) } : block
}

/**
 * A stand-in answers as the log recorded. With the manifest's definition it is also sent as the
 * model saw the tool (description, schema, hint, examples) and deferred as it was, so the pool's
 * hash, its threshold estimate and ToolSearch's ranking come out the same.
 */
function standIn(events: readonly KernelEvent[], name: string, manifest?: RecordedManifest): Tool {
  const names = new Set([name, ...(manifest?.aliases ?? [])])
  const { safe, interrupt, verdict, refused, validation } = answersOf(events, name, names)
  const mapped = mappedBlocksOf(events, names)
  const definition = manifest?.definition
  const tool = buildTool({
    name,
    aliases: manifest?.aliases ?? [],
    description: () => `stand-in for ${name}, built from the log`,
    ...(definition !== undefined && {
      prompt: () => definition.description,
      ...(definition.searchHint !== undefined && { searchHint: definition.searchHint }),
      ...(definition.inputExamples !== undefined && { inputExamples: definition.inputExamples }),
    }),
    inputJSONSchema: jsonSchemaObject(definition?.inputSchema),
    ...(refused.size > 0 && { inputSchema: refusing(refused, jsonSchemaObject(definition?.inputSchema)) }),
    // Replay answers with the recorded verdict (a validator may have looked at the world, so its
    // verdict is an outside answer even for the real tool); the stand-in only has to have one.
    ...((manifest?.validates ?? [...validation.values()].some((answer) => !answer.result)) && {
      validateInput: (input: unknown) => validation.get(canonicalJson(input)) ?? { result: true as const },
    }),
    ...(manifest?.defer === true && { shouldDefer: true }),
    // The tool's own limit decides whether its output goes to the result store (null: none).
    ...(manifest !== undefined && { maxResultSizeChars: manifest.maxResultSizeChars ?? Infinity }),
    ...(manifest?.person === true && { requiresUserInteraction: () => true }),
    isConcurrencySafe: (input) => safe.get(canonicalJson(input)) === true,
    interruptBehavior: () => manifest?.interrupt ?? interrupt ?? 'block',
    cascadesOnFailure: manifest?.cascades ?? false,
    checkPermissions: (input) => {
      const v = verdict.get(canonicalJson(input))
      return v === undefined || v.behavior === 'allow'
        ? { behavior: 'allow' }
        : { behavior: v.behavior, message: v.message }
    },
    call: async () => undefined,
    mapToolResultToToolResultBlockParam: (output, toolUseId) =>
      mapped.get(toolUseId)?.shift() ?? defaultMapper(output, toolUseId),
    ...timingOf(events, names),
  })
  // An MCP tool under a cut, hashed name: rules and hook matchers saw its full name too.
  const listed = events
    .flatMap((e) => (e.type === 'pool.changed' ? (e.names ?? []) : []))
    .find((entry) => entry.name === name)
  const full = listed === undefined ? undefined : fullName(listed)
  return full === undefined || full === name ? tool : Object.assign(tool, { ruleNames: [full] })
}

/**
 * The deadline and retries the log shows the tool had (docs/design.md §Deadlines and retries):
 * the deadline a call of it ran out of, and a retry policy that retries the errors the log shows
 * retried, with the recorded delays, up to the most attempts any call made.
 */
function timingOf(events: readonly KernelEvent[], names: ReadonlySet<string>): Partial<ToolDef<unknown>> {
  const calls = new Set<string>()
  let timeoutMs: number | undefined
  let attempts = 0
  const delays = new Map<number, number>()
  const retried = new Set<string>()
  for (const e of events) {
    if (e.type === 'tool.requested' && names.has(e.name)) calls.add(callKey(e.turnId, e.toolUseId))
    if (!('toolUseId' in e) || !calls.has(callKey(e.turnId, e.toolUseId))) continue
    if (e.type === 'tool.timed_out') timeoutMs ??= e.timeoutMs
    if (e.type === 'tool.retrying') {
      retried.add(e.error)
      if (!delays.has(e.attempt)) delays.set(e.attempt, e.delayMs)
      attempts = Math.max(attempts, e.attempt + 1)
    }
    if ((e.type === 'tool.errored' || e.type === 'tool.timed_out') && e.attempts !== undefined)
      attempts = Math.max(attempts, e.attempts)
  }
  const retry: RetryPolicy | undefined =
    retried.size === 0
      ? undefined
      : {
          attempts: Math.max(2, attempts),
          backoff: (attempt) => delays.get(attempt) ?? 0,
          retryOn: (error) => retried.has(describeError(error)),
        }
  return {
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(retry !== undefined && { idempotent: true, retry }),
  }
}

/**
 * A schema that refuses exactly the inputs the log shows refused, and takes any other as it is.
 * Without the real schema the stand-in cannot say *why* (replay takes that text from the log,
 * `inputNotChecked`); it says *which*, so the engine decides the rest — safety, the result, what
 * runs — as it did. Its JSON Schema is the recorded one: the model is offered the tool unchanged.
 */
function refusing(refused: ReadonlySet<string>, json: JsonSchemaObject): z.ZodType {
  return z.custom((input) => !refused.has(canonicalJson(input))).meta(json)
}

/** The recorded schema when it is an object schema (what buildTool takes); any object otherwise. */
function jsonSchemaObject(schema: Record<string, unknown> | undefined): JsonSchemaObject {
  return schema?.type === 'object' ? (schema as JsonSchemaObject) : { type: 'object' }
}
