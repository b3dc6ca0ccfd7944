/**
 * Names a hostile server can list (issue 30 item 2): whatever it lists, a rule naming a tool as the
 * server lists it (its full `mcp__<server>__<tool>`) or by the name the kernel gives it matches
 * that tool and no other, and look-alikes are withheld.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { McpConnection } from '../../src/mcp/connection.types.js'
import { fullName } from '../../src/mcp/names.js'
import { createMcpToolSource } from '../../src/mcp/source.js'
import { compileRules } from '../../src/permissions/ruleset.js'
import { namesTool, parseRule } from '../../src/permissions/rules.js'

/** A connection that only lists tools (nothing is called here). */
function listing(server: string, names: readonly string[]): McpConnection {
  return {
    server,
    state: () => 'ready',
    tools: () => names.map((name) => ({ name, inputSchema: { type: 'object', properties: {} } })),
    lastFault: () => undefined,
    pid: () => undefined,
    stderrTail: () => [],
    callTool: () => Promise.reject(new Error('not here')),
    whenReady: () => Promise.resolve(true),
    subscribe: () => () => undefined,
    close: () => Promise.resolve(),
  }
}

const toolName = fc.oneof(
  fc.constantFrom('delete_repo', 'delete.repo', 'delete-repo', 'delete repo', 'x', 'x.y', 'x_y'),
  fc.constantFrom('a', 'b', '.', '_', 'é').chain((c) => fc.integer({ min: 1, max: 90 }).map((n) => c.repeat(n))),
  fc.string({ minLength: 1, maxLength: 80 }),
)

describe('look-alike and long MCP names', () => {
  it('every rule name of a kept tool names it and no other tool; look-alikes are all withheld', () => {
    fc.assert(
      fc.property(fc.array(toolName, { maxLength: 12 }), fc.array(toolName, { maxLength: 4 }), (mine, other) => {
        const source = createMcpToolSource([listing('evil', mine), listing('other', other)], { trusted: new Set() })
        const tools = source.tools()
        const listed = [
          ...new Set(mine.map((tool) => JSON.stringify(['evil', tool]))),
          ...new Set(other.map((tool) => JSON.stringify(['other', tool]))),
        ].map((key) => JSON.parse(key) as [string, string])
        const full = listed.map(([server, tool]) => fullName({ server, tool }))
        for (const [i, [server, tool]] of listed.entries()) {
          const shared = full.filter((name) => name === full[i]).length > 1
          const kept = tools.some((t) => t.mcp.server === server && t.mcp.tool === tool)
          expect(kept, `${server}/${tool}`).toBe(!shared)
        }
        for (const tool of tools) {
          const names = [tool.name, ...(tool.ruleNames ?? [])]
          expect(names).toContain(fullName({ server: tool.mcp.server, tool: tool.mcp.tool }))
          for (const name of names) {
            const rule = parseRule(name, 'deny')
            expect(tools.filter((t) => namesTool(rule, t)).map((t) => t.name)).toEqual([tool.name])
          }
        }
      }),
      { numRuns: 100 },
    )
  })
})

describe('MCP rules that could never apply', () => {
  it('a rule with a specifier on an MCP tool is refused: MCP tools take none', () => {
    expect(() => compileRules({ deny: ['mcp__github__delete_repo(org/*)'] })).toThrow(
      /permission rule "mcp__github__delete_repo\(org\/\*\)" \(deny\) has a specifier, but MCP tools take none; write mcp__github__delete_repo alone/,
    )
  })

  it('a rule with a specifier on an MCP server is refused too', () => {
    expect(() => compileRules({ allow: ['mcp__github(x)'] })).toThrow(/MCP tools take none; write mcp__github alone/)
  })
})
