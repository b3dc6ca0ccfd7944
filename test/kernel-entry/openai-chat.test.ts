/**
 * OpenAI Chat Completions through the kernel: a choice or a whole completion in, `finish_reason`
 * honoured (a cut-off completion runs nothing), and every kind of streamed chunk.
 */
import { describe, expect, it } from 'vitest'
import { toOpenAIToolMessages } from '../../src/index.js'
import { testKernel } from '../helpers.js'
import { recordingTools } from './tools.js'

const call = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
})
const choice = (finish: 'stop' | 'length' | 'tool_calls' | 'content_filter', calls: ReturnType<typeof call>[]) => ({
  index: 0,
  finish_reason: finish,
  logprobs: null,
  message: { role: 'assistant' as const, content: null, refusal: null, tool_calls: calls },
})
const completion = (...choices: ReturnType<typeof choice>[]) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion' as const,
  created: 1764500000,
  model: 'gpt-4.1',
  choices,
})

describe('runTurn: a choice or a whole completion', () => {
  it('a whole completion runs its calls; the tool messages pair by tool_call_id', async () => {
    const { ran, tools } = recordingTools()
    const { message } = await testKernel(tools).runTurn(
      completion(
        choice('tool_calls', [
          call('call_1', 'Read', { file_path: '/a' }),
          call('call_2', 'Write', { file_path: '/b', content: 'x' }),
        ]),
      ),
    )
    expect(ran).toEqual(['Read /a', 'Write /b'])
    expect(toOpenAIToolMessages(message)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'contents of /a' },
      { role: 'tool', tool_call_id: 'call_2', content: 'wrote /b' },
    ])
  })

  it.each(['length', 'content_filter'] as const)(
    'finish_reason %s on the choice: nothing runs, every call is voided saying why',
    async (finish) => {
      const { ran, tools } = recordingTools()
      const kernel = testKernel(tools)
      const calls = [call('r', 'Read', { file_path: '/a' }), call('w', 'Write', { file_path: '/b', content: 'x' })]
      for (const value of [choice(finish, calls), completion(choice(finish, calls))]) {
        const { message } = await kernel.runTurn(value)
        expect(message.content.map((b) => b.is_error)).toEqual([true, true])
        const stop = finish === 'length' ? 'max_tokens' : 'refusal'
        for (const block of message.content) expect(block.content).toMatch(`stop reason "${stop}" instead of tool use`)
      }
      expect(ran).toEqual([])
    },
  )

  it('finish_reason stop with no calls: an empty message', async () => {
    const { tools } = recordingTools()
    const done = { ...choice('stop', []), message: { role: 'assistant' as const, content: 'Done.', refusal: null } }
    expect((await testKernel(tools).runTurn(done)).message).toEqual({ role: 'user', content: [] })
  })

  it('several choices (n > 1), no choices, a custom tool call, the functions API: TypeErrors naming the fix', async () => {
    const kernel = testKernel(recordingTools().tools)
    const one = choice('tool_calls', [call('a', 'Read', { file_path: '/a' })])
    await expect(kernel.runTurn(completion(one, { ...one, index: 1 }))).rejects.toThrow(
      /2 choices \(n > 1\)[^]*kernel.runTurn\(completion.choices\[i\]\), or request n: 1/,
    )
    await expect(kernel.runTurn(completion())).rejects.toThrow(/no choices/)
    await expect(
      kernel.runTurn({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'x', type: 'custom', custom: { name: 'sql', input: 'select 1' } }],
      }),
    ).rejects.toThrow(/tool_calls\[0\] is a custom tool call: toolkernel runs function tools/)
    await expect(
      kernel.runTurn({ role: 'assistant', content: null, function_call: { name: 'Read', arguments: '{}' } }),
    ).rejects.toThrow(/deprecated functions API[^]*kernel.apiTools\(\) as `tools`/)
  })
})

type Delta = Record<string, unknown>
const chunk = (delta: Delta, finish: string | null = null, index = 0) => ({
  id: 'chatcmpl-2',
  object: 'chat.completion.chunk',
  created: 1764500000,
  model: 'gpt-4.1',
  choices: [{ index, delta, logprobs: null, finish_reason: finish }],
})
const toolDelta = (index: number, id: string | undefined, name: string | undefined, args: string) => ({
  tool_calls: [
    {
      index,
      ...(id !== undefined ? { id, type: 'function' } : {}),
      function: { ...(name !== undefined ? { name } : {}), arguments: args },
    },
  ],
})

describe('pushOpenAI: every kind of chunk', () => {
  it('a filter-results chunk with no choices first, refusal and text deltas, the usage chunk and [DONE]', async () => {
    const { ran, tools } = recordingTools()
    const turn = testKernel(tools).startTurn()
    turn.pushOpenAI({
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [],
      prompt_filter_results: [],
    })
    turn.pushOpenAI(chunk({ role: 'assistant', content: '', refusal: null }))
    turn.pushOpenAI(chunk({ content: 'Reading.' }))
    turn.pushOpenAI(chunk(toolDelta(0, 'call_r', 'Read', '{"file_path":')))
    turn.pushOpenAI(chunk(toolDelta(0, undefined, undefined, '"/a"}')))
    turn.pushOpenAI(chunk({}, 'tool_calls'))
    turn.pushOpenAI({ ...chunk({}), choices: [], usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 } })
    turn.pushOpenAI('[DONE]')
    const { message } = await turn.result()
    expect(ran).toEqual(['Read /a'])
    expect(toOpenAIToolMessages(message)).toEqual([{ role: 'tool', tool_call_id: 'call_r', content: 'contents of /a' }])
  })

  it('a refusal: refusal deltas and finish_reason stop end the turn with nothing to run', async () => {
    const turn = testKernel(recordingTools().tools).startTurn()
    turn.pushOpenAI(chunk({ role: 'assistant', content: null, refusal: '' }))
    turn.pushOpenAI(chunk({ refusal: "I can't help with that." }))
    turn.pushOpenAI(chunk({}, 'stop'))
    turn.pushOpenAI('[DONE]')
    const { message, events } = await turn.result()
    expect(message.content).toEqual([])
    expect(events.find((e) => e.type === 'turn.ended')).toMatchObject({ stopReason: 'end_turn' })
  })

  it('finish_reason length mid-call: the unsafe Write never runs, the cut call says it was cut off', async () => {
    const { ran, tools } = recordingTools()
    const turn = testKernel(tools).startTurn()
    turn.pushOpenAI(chunk(toolDelta(0, 'w', 'Write', '{"file_path":"/b","content":"x"}')))
    turn.pushOpenAI(chunk(toolDelta(1, 'w2', 'Write', '{"file_path":"/c","cont')))
    turn.pushOpenAI(chunk({}, 'length'))
    const { message } = await turn.result()
    expect(ran).toEqual([])
    expect(message.content[0]?.content).toMatch(/stop reason "max_tokens" instead of tool use/)
    expect(message.content[1]?.content).toMatch(/cut off before the JSON was complete/)
  })

  it('a chunk of another choice (n > 1) is refused with the fix', () => {
    const turn = testKernel(recordingTools().tools).startTurn()
    turn.pushOpenAI(chunk({ role: 'assistant' }))
    expect(() => turn.pushOpenAI(chunk({ role: 'assistant' }, null, 1))).toThrow(
      /choice 1: the stream carries several choices \(n > 1\)[^]*request n: 1/,
    )
    turn.fail(new Error('gave up'))
  })
})
