/**
 * Found by checkToolLayer (issue 32): an output too large for the log goes to the result store;
 * when the turn was aborted while that save was under way, the save was abandoned — the log said
 * `tool.completed { persisted: true }`, then `tool.budgeted { error: 'the turn was interrupted
 * before it was saved' }` with no path, so the output was neither in the log nor in a file, and
 * replay diverged at `tool.completed`. An abort now lets the save finish (the tool has returned;
 * decision 159): the log names the file, the model reads the preview and the path, replay agrees.
 */
import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, createKernel, createMemoryLog, replay } from '../../src/index.js'

it('an abort while a large output is being saved keeps the output: saved, named, and replayed', async () => {
  const controller = new AbortController()
  const tool = (name: string, call: () => Promise<string>) =>
    buildTool({
      name,
      description: () => name,
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      call,
    })
  const Slow = tool('Slow', async () => {
    await new Promise((resolve) => setImmediate(resolve))
    return 'slow'
  })
  const Big = tool('Big', async () => 'x'.repeat(400_000))
  // Starts when Slow is done (the cap is 2), while Big's output is being saved: it aborts the turn.
  const Stop = tool('Stop', async () => {
    controller.abort(new Error('stop'))
    return 'stopped'
  })
  const tools = [Slow, Big, Stop]
  const log = createMemoryLog()
  const kernel = createKernel({ tools, log, maxConcurrency: 2, approvals: 'deny' })
  const use = (id: string, name: string) => ({ type: 'tool_use' as const, id, name, input: {} })
  await kernel.runTurn(
    { role: 'assistant', content: [use('t0', 'Slow'), use('t1', 'Big'), use('t2', 'Stop')], stop_reason: 'tool_use' },
    { signal: controller.signal },
  )
  const events = log.read()
  expect(events.some((e) => e.type === 'turn.aborted')).toBe(true)
  const budgeted = events.find((e) => e.type === 'tool.budgeted')
  expect(budgeted).toMatchObject({ toolUseId: 't1', path: expect.any(String), chars: 400_000 })
  expect(budgeted).not.toHaveProperty('error')
  const path = (budgeted as { path: string }).path
  expect(readFileSync(path, 'utf8')).toBe('x'.repeat(400_000))
  const result = events.find((e) => e.type === 'tool.result' && e.toolUseId === 't1')
  expect(JSON.stringify(result)).toContain(path)
  const replayed = await replay(events, { tools })
  expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
})
