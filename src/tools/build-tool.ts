import { z } from 'zod'
import type { ToolResultBlock } from '../events/event.schema.js'
import { isLazySchema, type LazySchema } from './lazy-schema.js'
import { checkedExamples } from './pool/input-examples.js'
import type { Tool, ToolDef } from './tool.types.js'
import { retryProblem, timeoutProblem } from './retry.js'
import { checkKnownOptions, optionNames } from '../util/known-options.js'

/** Default past which output is persisted instead of sent whole (the budget step). */
export const DEFAULT_MAX_RESULT_SIZE_CHARS = 100_000

const NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** Every field of a tool definition (decision 118: an unknown one is refused, naming these). */
const TOOL_DEF_KEYS = optionNames<ToolDef<unknown>>()(
  'name',
  'aliases',
  'searchHint',
  'shouldDefer',
  'alwaysLoad',
  'inputExamples',
  'modes',
  'description',
  'prompt',
  'inputSchema',
  'inputJSONSchema',
  'outputSchema',
  'call',
  'validateInput',
  'checkPermissions',
  'isEnabled',
  'requiresUserInteraction',
  'isConcurrencySafe',
  'isReadOnly',
  'isDestructive',
  'isOpenWorld',
  'interruptBehavior',
  'timeoutMs',
  'idempotent',
  'retry',
  'cascadesOnFailure',
  'maxResultSizeChars',
  'mapToolResultToToolResultBlockParam',
  'userFacingName',
  'activityDescription',
  'getPath',
  'shellCommand',
  'getHost',
  'category',
)

/**
 * Builds a tool from its definition, filling every omitted field with a fail-closed default:
 * enabled, not concurrency-safe, not read-only, destructive unless read-only, not open-world,
 * permission allowed (the kernel's rules still apply), interrupt behaviour 'block', user-facing
 * name = name, activity `Running <user-facing name>`.
 *
 * The tool's name keeps its literal type (`N`), so progress updates narrow by it (`TurnUpdate`).
 *
 * @throws TypeError for a definition that could never run: a bad name, no schema, no call, a bad
 * `timeoutMs`, or a `retry` on a tool that is neither read-only nor idempotent.
 * @example
 * const echo = buildTool({
 *   name: 'Echo',
 *   description: () => 'Echoes its text.',
 *   inputSchema: z.strictObject({ text: z.string().describe('What to echo back') }),
 *   isConcurrencySafe: () => true,
 *   async call({ text }) { return text },
 * })
 */
export function buildTool<I, O = unknown, P = unknown, N extends string = string>(
  def: ToolDef<I, O, P> & { name: N },
): Tool<I, O, P> & { readonly name: N } {
  assertDefinition(def)
  const input = memo(() => resolveInputSchema(def.inputSchema))
  const output = memo(() => resolve(def.outputSchema))
  const name = def.name
  return {
    name,
    aliases: def.aliases ?? [],
    searchHint: def.searchHint,
    description: def.description,
    prompt: def.prompt ?? def.description,
    get inputSchema() {
      return input()
    },
    inputJSONSchema: def.inputJSONSchema,
    get outputSchema() {
      return output()
    },
    call: def.call,
    validateInput: def.validateInput,
    checkPermissions: def.checkPermissions ?? allowByDefault,
    isEnabled: def.isEnabled ?? yes,
    requiresUserInteraction: def.requiresUserInteraction ?? no,
    isConcurrencySafe: def.isConcurrencySafe ?? no,
    isReadOnly: def.isReadOnly ?? no,
    // Fail-closed: what does not say it is read-only may change things (decision 142).
    isDestructive: def.isDestructive ?? notReadOnly(def.isReadOnly),
    isOpenWorld: def.isOpenWorld ?? no,
    interruptBehavior: def.interruptBehavior ?? block,
    cascadesOnFailure: def.cascadesOnFailure ?? false,
    maxResultSizeChars: def.maxResultSizeChars ?? DEFAULT_MAX_RESULT_SIZE_CHARS,
    mapToolResultToToolResultBlockParam: def.mapToolResultToToolResultBlockParam ?? defaultMapper,
    userFacingName: def.userFacingName ?? (() => name),
    activityDescription: def.activityDescription ?? ((input: I) => `Running ${userFacing(def, name, input)}`),
    getPath: def.getPath,
    shellCommand: def.shellCommand,
    getHost: def.getHost,
    category: def.category,
    shouldDefer: def.shouldDefer === true,
    alwaysLoad: def.alwaysLoad === true,
    inputExamples: checkedExamples(def, input),
    modes: def.modes,
    timeoutMs: def.timeoutMs,
    idempotent: def.idempotent === true,
    retry: def.retry,
  }
}

/** The default `isDestructive`: destructive unless the tool says this input is read-only. */
function notReadOnly<I>(isReadOnly: ToolDef<I>['isReadOnly']): NonNullable<ToolDef<I>['isDestructive']> {
  return isReadOnly === undefined ? yes : (input, context) => isReadOnly(input, context) !== true
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function userFacing<I>(def: ToolDef<I, any, any>, name: string, input: I): string {
  return def.userFacingName?.(input) ?? name
}

const yes = (): boolean => true
const no = (): boolean => false
const block = (): 'block' => 'block'
/** The default `checkPermissions`: the kernel can tell it apart, so such calls may start early. */
export const allowByDefault = (): { behavior: 'allow' } => ({ behavior: 'allow' })

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function assertDefinition(def: ToolDef<any, any, any>): void {
  if (typeof def.name !== 'string' || !NAME.test(def.name)) {
    throw new TypeError(
      `buildTool: name ${JSON.stringify(def.name)} must be 1-64 characters of letters, digits, _ or -`,
    )
  }
  // A misspelt field (`isReadonly`) would otherwise leave its fail-closed default in force, silently.
  checkKnownOptions(`buildTool(${def.name})`, def, TOOL_DEF_KEYS)
  if (typeof def.call !== 'function') throw new TypeError(`buildTool(${def.name}): call must be a function`)
  if (typeof def.description !== 'function')
    throw new TypeError(`buildTool(${def.name}): description must be a function returning a string`)
  if (def.inputSchema === undefined && def.inputJSONSchema === undefined) {
    throw new TypeError(`buildTool(${def.name}): give an inputSchema (zod) or an inputJSONSchema`)
  }
  const foreign = isLazySchema(def.inputSchema) ? undefined : notZod4(def.inputSchema)
  if (foreign !== undefined) throw new TypeError(`buildTool(${def.name}): ${foreign}`)
  const traits = { readOnly: typeof def.isReadOnly === 'function', idempotent: def.idempotent === true }
  const problem = timeoutProblem(def.timeoutMs) ?? retryProblem(def.retry, traits)
  if (problem !== undefined) throw new TypeError(`buildTool(${def.name}): ${problem}`)
}

/**
 * Why a schema is not one toolkernel can use (zod 4: every schema carries `_zod`), or undefined.
 * A zod 3 schema type-checks loosely against zod 4's types and then fails deep inside (reading
 * `def`); a plain JSON Schema object belongs in `inputJSONSchema`. Both are refused here, by name.
 */
function notZod4(schema: unknown): string | undefined {
  if (schema === undefined) return undefined
  if (typeof schema !== 'object' || schema === null)
    return `inputSchema must be a zod 4 schema, got ${schema === null ? 'null' : typeof schema}`
  if ('_zod' in schema) return undefined
  if ('_def' in schema)
    return "inputSchema is a zod 3 schema (it has _def but no _zod): toolkernel needs zod 4 — install zod 4 and `import { z } from 'zod'` (zod 3.25+ also ships it as 'zod/v4'), or pass the input's JSON Schema as inputJSONSchema"
  return "inputSchema is a plain object, not a zod 4 schema: pass a JSON Schema as inputJSONSchema instead, or build the schema with zod 4 (`import { z } from 'zod'`)"
}

function memo<T>(f: () => T): () => T {
  let done = false
  let value: T
  return () => {
    if (!done) {
      value = f()
      done = true
    }
    return value
  }
}

function resolve<S>(schema: S | LazySchema<S> | undefined): S | undefined {
  return isLazySchema(schema) ? (schema.get() as S) : schema
}

/** Tool input is a strict object: a field the schema does not name is an error, not silently dropped. */
function resolveInputSchema<I>(schema: z.ZodType<I> | LazySchema<z.ZodType<I>> | undefined): z.ZodType<I> | undefined {
  const resolved = resolve(schema)
  const foreign = notZod4(resolved)
  if (foreign !== undefined) throw new TypeError(`lazySchema resolved to a schema toolkernel cannot use: ${foreign}`)
  if (resolved instanceof z.ZodObject && resolved.def.catchall === undefined) {
    return resolved.strict() as unknown as z.ZodType<I>
  }
  return resolved
}

/**
 * The default output mapper: strings as they are, `undefined`/`null` as empty, anything else as
 * indented JSON. The kernel replaces empty content with "(<Tool> completed with no output)".
 */
export function defaultMapper(output: unknown, toolUseId: string): ToolResultBlock {
  const content =
    output === undefined || output === null ? '' : typeof output === 'string' ? output : JSON.stringify(output, null, 2)
  return { type: 'tool_result', tool_use_id: toolUseId, content: content ?? '' }
}
