/** One entry of a server's `tools/list`, checked on its own: a bad entry is withheld, never the whole list. */
import { z } from 'zod'
import type { McpListedTool } from './connection.types.js'

const Hints = z.looseObject({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
})

const ListedTool = z.looseObject({
  name: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.unknown(),
  outputSchema: z.unknown().optional(),
  // Hints of the wrong type are dropped, not fatal: the flags then take their fail-closed defaults.
  annotations: Hints.optional().catch(undefined),
  _meta: z.record(z.string(), z.unknown()).optional().catch(undefined),
})

export type ListedVerdict = { ok: true; tool: McpListedTool } | { ok: false; name: string; reason: string }

export function parseListedTool(value: unknown): ListedVerdict {
  const parsed = ListedTool.safeParse(value)
  if (parsed.success) return { ok: true, tool: parsed.data as McpListedTool }
  const name = value !== null && typeof value === 'object' ? (value as { name?: unknown }).name : undefined
  const issue = parsed.error.issues[0]
  return {
    ok: false,
    name: typeof name === 'string' ? name : '(unnamed)',
    reason: `its tools/list entry is malformed (${issue?.path.join('.') || 'entry'}: ${issue?.message ?? 'invalid'})`,
  }
}
