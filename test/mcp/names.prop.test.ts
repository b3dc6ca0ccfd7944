/** The name allocator over random identities: random unicode, duplicates, overlong names. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { allocateNames, MAX_TOOL_NAME, type McpToolIdentity } from '../../src/mcp/names.js'
import { serverPrefix } from '../../src/mcp/names.js'

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: fc.constantFrom('a', 'b', '_', '-', '.', ' ', 'é', '🙂'), maxLength: 120 }),
  fc.constantFrom('search', 'a'.repeat(100), 'x.y', 'x_y', ''),
)
const identity = fc.record({ server: fc.oneof(text, fc.constantFrom('github', 'git.hub', 'git_hub')), tool: text })
/** Lists with duplicates: some entries repeated. */
const identities = fc
  .array(identity, { maxLength: 40 })
  .chain((list) => fc.tuple(fc.constant(list), fc.array(fc.nat(Math.max(0, list.length - 1)), { maxLength: 10 })))
  .map(([list, repeats]) => [...list, ...repeats.flatMap((i) => (list[i] ? [list[i]] : []))])

const key = (id: McpToolIdentity) => JSON.stringify([id.server, id.tool])

describe('allocateNames (property)', () => {
  it('every name is [a-zA-Z0-9_-], at most 64 characters, and starts with its server prefix', () => {
    fc.assert(
      fc.property(identities, (list) => {
        for (const entry of allocateNames(list)) {
          expect(entry.name).toMatch(/^[a-zA-Z0-9_-]+$/)
          expect(entry.name.length).toBeLessThanOrEqual(MAX_TOOL_NAME)
          expect(entry.name.startsWith(`${serverPrefix(entry.server)}__`)).toBe(true)
        }
      }),
    )
  })

  it('injective: one name per distinct identity, no two alike', () => {
    fc.assert(
      fc.property(identities, (list) => {
        const entries = allocateNames(list)
        expect(entries).toHaveLength(new Set(list.map(key)).size)
        expect(new Set(entries.map((entry) => entry.name)).size).toBe(entries.length)
        expect(new Set(entries.map(key)).size).toBe(entries.length)
      }),
    )
  })

  it('stable under reordering: the same set gives the same names', () => {
    fc.assert(
      fc.property(identities, fc.nat(), (list, seed) => {
        const shuffled = [...list].sort((a, b) => ((hash(key(a)) ^ seed) % 97) - ((hash(key(b)) ^ seed) % 97))
        expect(allocateNames(shuffled)).toEqual(allocateNames(list))
      }),
    )
  })

  it('a short, clean, unshared name is kept as it is', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9-]{1,20}$/), fc.stringMatching(/^[a-z0-9_-]{1,30}$/), (server, tool) => {
        expect(allocateNames([{ server, tool }])).toEqual([{ server, tool, name: `mcp__${server}__${tool}` }])
      }),
    )
  })
})

function hash(text: string): number {
  let h = 0
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0
  return Math.abs(h)
}
