/**
 * The parse step alone, through a kernel: each way it refuses a call, recorded as a rejection at
 * parse with its own code, and a voided call keeping the scheduler's reason whatever its name.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../../src/index.js'
import { assistant, Echo, pushCutToolUse, testKernel } from '../../helpers.js'

const Off = buildTool({
  name: 'Off',
  description: () => 'o',
  inputSchema: z.object({}),
  isEnabled: () => false,
  call: async () => 'ran',
})

describe('what parse refuses, and how the log records it', () => {
  // [the call, the code of its rejection at parse]
  const rows: Array<[string, string, unknown, string]> = [
    ['a tool of no name it knows', 'Nope', {}, 'unknown_tool'],
    ['a disabled tool', 'Off', {}, 'tool_disabled'],
    ['input that is a string', 'Echo', 'text', 'not_an_object'],
    ['input that is null', 'Echo', null, 'not_an_object'],
    ['input that is an array', 'Echo', ['text'], 'not_an_object'],
    ['input that is a number', 'Echo', 7, 'not_an_object'],
  ]
  it.each(rows)('%s', async (_what, name, input, code) => {
    const { events, message } = await testKernel([Echo, Off]).runTurn(assistant(['a', name, input]))
    expect(events.find((e) => e.type === 'tool.rejected')).toMatchObject({ step: 'parse', code })
    expect(message.content[0]?.is_error).toBe(true)
  })

  it('input JSON cut off in a stream: invalid_json at parse', async () => {
    const turn = testKernel([Echo]).startTurn()
    pushCutToolUse(turn, 'a', 'Echo', '{"te')
    turn.fail(new Error('reset'))
    const { events } = await turn.result()
    expect(events.find((e) => e.type === 'tool.rejected')).toMatchObject({ step: 'parse', code: 'invalid_json' })
  })

  it('a call voided before it started keeps why, even with a name no tool has', async () => {
    const { message } = await testKernel([Echo]).runTurn(assistant(['a', 'Nope', {}]), {
      signal: AbortSignal.abort('user pressed Esc'),
    })
    expect(message.content[0]?.content).toBe(
      'Nope was cancelled before it ran: user pressed Esc. It had no effect; call it again if it is still needed.',
    )
  })
})
