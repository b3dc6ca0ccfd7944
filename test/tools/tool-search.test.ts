/** ToolSearch's query forms, limits and texts, over the pure search and through a kernel. */
import { describe, expect, it } from 'vitest'
import { searchTools } from '../../src/tools/pool/search.js'
import { unloadedToolText } from '../../src/tools/builtin/tool-search.tool.js'
import { assistant, testKernel } from '../helpers.js'
import { syntheticTool, syntheticTools } from './pool/synthetic.js'

const tools = syntheticTools(160)
const names = tools.map((t) => t.name)

describe('searchTools: Claude Code query forms', () => {
  it('select:A,B loads exactly those, in the order asked, and reports the missing ones', () => {
    const [a, b] = [names[7] as string, names[3] as string]
    expect(searchTools(tools, `select:${a}, ${b},Nope,${a}`)).toEqual({
      how: 'select',
      matches: [a, b],
      missing: ['Nope'],
    })
    expect(searchTools(tools, `SELECT:${b}`).matches).toEqual([b])
  })

  it('an exact tool name finds that tool alone', () => {
    expect(searchTools(tools, names[42] as string)).toEqual({ how: 'search', matches: [names[42]], missing: [] })
  })

  it('mcp__server (with or without the trailing __) finds that server’s tools, by name, up to the limit', () => {
    const slack = names.filter((n) => n.startsWith('mcp__slack__')).sort()
    expect(searchTools(tools, 'mcp__slack', 20).matches).toEqual(slack.slice(0, 20))
    expect(searchTools(tools, 'mcp__slack__').matches).toEqual(slack.slice(0, 5))
  })

  it('+term must occur in every result; plain words rank', () => {
    const hits = searchTools(tools, '+stripe delete', 20).matches
    expect(hits.length).toBeGreaterThan(0)
    expect(hits.every((n) => n.includes('stripe'))).toBe(true)
    expect(hits[0]).toMatch(/^mcp__stripe__delete_/)
  })

  it('default 5 results, at most 20 whatever is asked, at least 1', () => {
    expect(searchTools(tools, 'issue').matches).toHaveLength(5)
    expect(searchTools(tools, 'issue', 500).matches).toHaveLength(20)
    expect(searchTools(tools, 'issue', 0).matches).toHaveLength(1)
  })

  it('the searchHint is weighted: a hinted tool outranks one that says the word only in its description', () => {
    const hinted = syntheticTool(1000, { hint: 'refund chargeback' })
    const plain = syntheticTool(1001)
    expect(searchTools([plain, hinted], 'refund').matches).toEqual([hinted.name])
  })

  it('is deterministic: the same tools and query give the same answer, in any input order of equal scores', () => {
    const reversed = [...tools].reverse()
    for (const query of ['create issue', 'github', '+jira list', 'message channel']) {
      expect(searchTools(reversed, query, 20)).toEqual(searchTools(tools, query, 20))
    }
  })
})

describe('ToolSearch through a kernel', () => {
  it('rejects max_results above 20 with a validation error the model can act on', async () => {
    const kernel = testKernel(tools)
    const { message } = await kernel.runTurn(assistant(['a', 'ToolSearch', { query: 'x', max_results: 25 }]))
    expect(message.content[0]?.is_error).toBe(true)
    expect(String(message.content[0]?.content)).toMatch(/max_results/)
  })

  it('the unloaded-call hint names the select: query', () => {
    expect(unloadedToolText('mcp__a__b')).toContain('query "select:mcp__a__b"')
  })
})
