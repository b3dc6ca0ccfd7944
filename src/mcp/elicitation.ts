/**
 * Elicitation: a server asks the user for input while a call runs. The app answers through a
 * callback shaped like `canUseTool` (allow with the user's values, deny, or cancel); without a
 * callback the client does not offer elicitation at all, so servers never wait on it. Each
 * answer is reported to the running calls of that server, so it lands in the log.
 */
import { z } from 'zod'
import type { McpCallOptions } from './connection.types.js'
import { rawValidator } from './schema.js'

/** What the server asks. */
export interface McpElicitRequest {
  readonly server: string
  readonly message: string
  /** A flat JSON Schema object of the fields wanted (form mode). */
  readonly requestedSchema: unknown
}

/** The app's answer: the user's values, a refusal, or a dismissal. */
export type McpElicitDecision =
  { behavior: 'allow'; content?: FormValues } | { behavior: 'deny'; message?: string } | { behavior: 'cancel' }

export type McpElicitHandler = (request: McpElicitRequest) => McpElicitDecision | Promise<McpElicitDecision>

const Decision = z.discriminatedUnion('behavior', [
  z.object({
    behavior: z.literal('allow'),
    content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
  }),
  z.object({ behavior: z.literal('deny'), message: z.string().optional() }),
  z.object({ behavior: z.literal('cancel') }),
])

type FormValues = Record<string, string | number | boolean | string[]>
type ElicitResult = { action: 'accept'; content: FormValues } | { action: 'decline' } | { action: 'cancel' }

/**
 * Asks the app and turns its decision into the protocol's answer. A handler that throws, or
 * answers something that is not a decision, or values that do not fit the requested schema,
 * declines (fail closed: the server gets no made-up input).
 */
export async function answerElicitation(
  handler: McpElicitHandler,
  server: string,
  params: { message?: unknown; requestedSchema?: unknown },
  running: readonly McpCallOptions[],
): Promise<ElicitResult> {
  const request: McpElicitRequest = {
    server,
    message: typeof params.message === 'string' ? params.message : '',
    requestedSchema: params.requestedSchema,
  }
  let result: ElicitResult
  let note: string | undefined
  try {
    const parsed = Decision.safeParse(await handler(request))
    if (!parsed.success) {
      result = { action: 'decline' }
      note = `the app's answer is not a decision (${parsed.error.issues[0]?.message ?? 'invalid'})`
    } else ({ result, note } = toResult(parsed.data, request.requestedSchema))
  } catch (error) {
    result = { action: 'decline' }
    note = `the app's elicitation handler failed (${error instanceof Error ? error.message : String(error)})`
  }
  const event = {
    type: 'mcp.elicitation',
    server,
    message: request.message,
    action: result.action,
    ...(note !== undefined && { note }),
  }
  for (const call of running) call.onEvent(result.action === 'accept' ? { ...event, content: result.content } : event)
  return result
}

function toResult(decision: z.infer<typeof Decision>, schema: unknown): { result: ElicitResult; note?: string } {
  if (decision.behavior === 'deny') return { result: { action: 'decline' } }
  if (decision.behavior === 'cancel') return { result: { action: 'cancel' } }
  const content = decision.content ?? {}
  const validator = rawValidator(schema ?? { type: 'object' })
  const problems = validator.ok ? validator.validate(content) : []
  if (problems.length > 0)
    return { result: { action: 'decline' }, note: `the values do not fit the requested form: ${problems.join('; ')}` }
  return { result: { action: 'accept', content } }
}
