/**
 * The Anthropic intake and the API's own server-side tool search: `server_tool_use` and
 * `tool_search_tool_result` blocks in an assistant message are the API's, not client calls.
 */
import { describe, expect, it } from 'vitest'
import { toolUsesOf } from '../../src/intake/assistant-message.js'
import { assistant, Echo, testKernel } from '../helpers.js'

// As the Messages API returns them (tool search tool, BM25 variant).
const serverSearch = [
  { type: 'text', text: 'Let me find the right tool.' },
  {
    type: 'server_tool_use',
    id: 'srvtoolu_01',
    name: 'tool_search_tool_bm25',
    input: { query: 'weather' },
    caller: { type: 'direct' },
  },
  {
    type: 'tool_search_tool_result',
    tool_use_id: 'srvtoolu_01',
    content: {
      type: 'tool_search_tool_search_result',
      tool_references: [{ type: 'tool_reference', tool_name: 'Echo' }],
    },
  },
  { type: 'tool_use', id: 'toolu_01', name: 'Echo', input: { text: 'sunny' } },
]

describe('server-side tool search blocks in an assistant message', () => {
  it('only the tool_use is a client call', () => {
    expect(toolUsesOf({ role: 'assistant', content: serverSearch, stop_reason: 'tool_use' })).toEqual({
      uses: [{ id: 'toolu_01', name: 'Echo', input: { text: 'sunny' }, index: 0 }],
      stopReason: 'tool_use',
    })
  })

  it('runTurn answers the client call alone', async () => {
    const { message } = await testKernel([Echo]).runTurn({
      role: 'assistant',
      content: serverSearch,
      stop_reason: 'tool_use',
    } as Parameters<ReturnType<typeof testKernel>['runTurn']>[0])
    expect(message.content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'sunny' }])
  })

  it('a message of server blocks only runs nothing', async () => {
    const { message } = await testKernel([Echo]).runTurn({
      ...assistant(),
      content: serverSearch.slice(0, 3),
      stop_reason: 'end_turn',
    } as Parameters<ReturnType<typeof testKernel>['runTurn']>[0])
    expect(message.content).toEqual([])
  })
})
