/**
 * Tool names for MCP tools: `mcp__<server>__<tool>`, only `[a-zA-Z0-9_-]`, at most 64 characters
 * (what the model APIs accept). A name that had to be cut, or that two tools would share after
 * their characters were replaced, ends in a short hash of the raw identity instead, so names are
 * injective and depend only on the set of tools, never on the order they were listed in.
 */
import { createHash } from 'node:crypto'

/** The longest tool name the model APIs accept. */
export const MAX_TOOL_NAME = 64
const HASH_CHARS = 8
/** A server segment longer than this is cut too, so every tool keeps room for its own name. */
const MAX_SERVER_SEGMENT = 30

/** What a name stands for: the server's name (as configured) and the tool's name (as listed). */
export interface McpToolIdentity {
  readonly server: string
  readonly tool: string
}

/** One allocated name, for the log: replay resolves the same names from it. */
export interface McpNameEntry extends McpToolIdentity {
  readonly name: string
  /** Why the name carries a hash, when it does. */
  readonly hashed?: 'collision' | 'overflow'
}

/** Characters outside `[a-zA-Z0-9_-]` become `_` (one per UTF-16 code unit, never dropped). */
export function sanitizeSegment(raw: string): string {
  const replaced = raw.replace(/[^a-zA-Z0-9_-]/g, '_')
  return replaced === '' ? '_' : replaced
}

/** The server's part of every name: `mcp__<server>`, which a permission rule `mcp__<server>` matches. */
export function serverPrefix(server: string): string {
  const segment = sanitizeSegment(server)
  if (segment.length <= MAX_SERVER_SEGMENT) return `mcp__${segment}`
  return `mcp__${segment.slice(0, MAX_SERVER_SEGMENT - HASH_CHARS - 1)}_${hash(['server', server], 0)}`
}

/**
 * The tool's full name before any cut or hash: `mcp__<server>__<tool>` with only the characters
 * replaced. Two tools with the same full name are look-alikes (`delete.repo`, `delete_repo`): the
 * source withholds both. A longer one is the name a rule or a hook matcher may use for the
 * hashed tool (Tool.ruleNames).
 */
export function fullName(id: McpToolIdentity): string {
  return `mcp__${sanitizeSegment(id.server)}__${sanitizeSegment(id.tool)}`
}

/**
 * Names for a set of MCP tools. Plain `mcp__<server>__<tool>` where that is short enough and no
 * other tool maps to it; otherwise the name is cut and ends in `_<hash>` of the raw identity.
 * Duplicate identities get one entry. The result is sorted by name.
 *
 * @example
 * allocateNames([{ server: 'github', tool: 'search' }, { server: 'jira', tool: 'search' }])
 * // [{ name: 'mcp__github__search', … }, { name: 'mcp__jira__search', … }]
 */
export function allocateNames(identities: readonly McpToolIdentity[]): McpNameEntry[] {
  const unique = dedupe(identities)
  const plain = unique.map((id) => `${serverPrefix(id.server)}__${sanitizeSegment(id.tool)}`)
  const counts = new Map<string, number>()
  for (const name of plain) counts.set(name, (counts.get(name) ?? 0) + 1)
  const taken = new Set<string>()
  const entries: McpNameEntry[] = []
  const pending: { id: McpToolIdentity; reason: 'collision' | 'overflow' }[] = []
  unique.forEach((id, i) => {
    const name = plain[i] as string
    if (name.length > MAX_TOOL_NAME) pending.push({ id, reason: 'overflow' })
    else if (counts.get(name) !== 1) pending.push({ id, reason: 'collision' })
    else {
      taken.add(name)
      entries.push({ ...id, name })
    }
  })
  // `unique` is sorted, so the hashed names are handed out in an order that does not depend on the input's.
  for (const { id, reason } of pending) {
    const name = hashedName(id, taken)
    taken.add(name)
    entries.push({ ...id, name, hashed: reason })
  }
  return entries.sort((a, b) => compare(a.name, b.name))
}

function hashedName(id: McpToolIdentity, taken: ReadonlySet<string>): string {
  const prefix = `${serverPrefix(id.server)}__`
  const room = MAX_TOOL_NAME - prefix.length - HASH_CHARS - 1
  const stem = `${prefix}${sanitizeSegment(id.tool).slice(0, Math.max(0, room))}`
  for (let salt = 0; ; salt++) {
    const name = `${stem}_${hash([id.server, id.tool], salt)}`
    if (!taken.has(name)) return name
  }
}

function hash(parts: readonly string[], salt: number): string {
  return createHash('sha256')
    .update(JSON.stringify([...parts, salt]))
    .digest('hex')
    .slice(0, HASH_CHARS)
}

function dedupe(identities: readonly McpToolIdentity[]): McpToolIdentity[] {
  const byKey = new Map<string, McpToolIdentity>()
  for (const id of identities) byKey.set(JSON.stringify([id.server, id.tool]), { server: id.server, tool: id.tool })
  return [...byKey.entries()].sort(([a], [b]) => compare(a, b)).map(([, id]) => id)
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
