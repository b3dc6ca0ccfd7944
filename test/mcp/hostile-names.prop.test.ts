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
import { toolsForReplay } from '../../src/cli/stand-ins.js'
import { builtinTools, replay } from '../../src/index.js'
import { assistant, testKernel } from '../helpers.js'

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
    hasResources: () => false,
    listResources: () => Promise.reject(new Error('not here')),
    readResource: () => Promise.reject(new Error('not here')),
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
        const tools = source.serverTools()
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

describe('a long name under a rule for its full name, replayed from the log alone', () => {
  it('the stand-in for the hashed name carries the full name, so replay reaches the same denial', async () => {
    const long = `delete_${'x'.repeat(80)}`
    const source = createMcpToolSource([listing('evil', [long])], { trusted: new Set() })
    const kernel = testKernel([], {
      toolSources: [source],
      permissions: { allow: ['mcp__evil'], deny: [`mcp__evil__${long}`] },
    })
    const hashed = source.tools()[0]!.name
    const { message } = await kernel.runTurn(assistant(['a', hashed, {}]))
    expect(JSON.stringify(message.content)).toMatch(/denies it/)
    const events = kernel.log.read()
    const { tools, standIns } = toolsForReplay(events, undefined, builtinTools)
    expect(standIns).toEqual([hashed])
    expect(tools.find((t) => t.name === hashed)?.ruleNames).toEqual([`mcp__evil__${long}`])
    const result = await replay(events, { tools })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
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
