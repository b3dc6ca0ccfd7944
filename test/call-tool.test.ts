/** kernel.callTool: one call outside a model turn, through the nine steps, into the log. */
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, Read, type KernelEvent } from '../src/index.js'
import { testKernel } from './helpers.js'

const workspace = () => realpathSync(mkdtempSync(join(tmpdir(), 'tk-calltool-')))

const textOf = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content))

const ofCall = (events: readonly KernelEvent[], id: string) =>
  events.filter((event) => 'toolUseId' in event && event.toolUseId === id).map((event) => event.type)

/** A tool that tells the test it started, then waits for its signal. */
function waiter() {
  let started!: () => void
  const running = new Promise<void>((resolve) => (started = resolve))
  const tool = buildTool({
    name: 'Wait',
    description: () => 'waits for its signal',
    inputSchema: z.object({}),
    isReadOnly: () => true,
    interruptBehavior: () => 'cancel',
    call: (_input, context) =>
      new Promise<string>((resolve) => {
        context.signal.addEventListener('abort', () => resolve('stopped'))
        started()
      }),
  })
  return { tool, running }
}

const Asker = buildTool({
  name: 'Asker',
  description: () => 'asks first',
  inputSchema: z.object({ text: z.string() }),
  checkPermissions: () => ({ behavior: 'ask', message: 'it changes things' }),
  call: async ({ text }) => `ran ${text}`,
})

describe('kernel.callTool', () => {
  it('runs a built-in through the nine steps and returns its block, its output and the events', async () => {
    const dir = workspace()
    writeFileSync(join(dir, 'notes.txt'), 'first line\nsecond line\n')
    const kernel = testKernel([Read], { cwd: dir })
    const { toolUseId, result, output, events, pending } = await kernel.callTool('Read', {
      file_path: join(dir, 'notes.txt'),
    })
    expect(toolUseId).toMatch(/^call_/)
    expect(pending).toEqual([])
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: toolUseId })
    expect(result?.is_error).toBeUndefined()
    expect(textOf(result?.content)).toContain('second line')
    expect(output).toMatchObject({ kind: 'text' })
    expect(ofCall(events, toolUseId)).toEqual([
      'tool.requested',
      'tool.queued',
      'tool.dispatched',
      'tool.parsed',
      'tool.validated',
      'tool.permitted',
      'tool.started',
      'tool.completed',
      'tool.mapped',
      'tool.result',
    ])
    expect(events[0]?.type).toBe('turn.started')
    expect(events.at(-1)?.type).toBe('turn.completed')
    // The same events are the log's: a call outside a turn is still a recorded turn.
    expect(kernel.log.read().slice(-events.length)).toEqual(events)
  })

  it('pairs its tool_use with exactly one tool_result, the block it returns', async () => {
    const dir = workspace()
    writeFileSync(join(dir, 'a.txt'), 'a\n')
    const kernel = testKernel([Read], { cwd: dir })
    const { toolUseId, result, events } = await kernel.callTool('Read', { file_path: join(dir, 'a.txt') })
    const requested = events.filter((e) => e.type === 'tool.requested')
    const results = events.filter((e) => e.type === 'tool.result')
    expect(requested).toHaveLength(1)
    expect(results).toHaveLength(1)
    expect(requested[0]).toMatchObject({ toolUseId, name: 'Read' })
    expect(results[0]).toMatchObject({ toolUseId, block: result })
  })

  it('is denied by a rule as a model call is, with the rule named', async () => {
    const dir = workspace()
    writeFileSync(join(dir, 'secret.txt'), 'do not read\n')
    const kernel = testKernel([Read], { cwd: dir, permissions: { deny: ['Read(./secret.txt)'] } })
    const { result, output, events, toolUseId } = await kernel.callTool('Read', { file_path: join(dir, 'secret.txt') })
    expect(result?.is_error).toBe(true)
    expect(textOf(result?.content)).toContain('Read(./secret.txt)')
    expect(textOf(result?.content)).not.toContain('do not read')
    expect(output).toBeUndefined()
    expect(ofCall(events, toolUseId)).not.toContain('tool.started')
  })

  it('answers bad input with the validation error the model would read', async () => {
    const kernel = testKernel([Read], { cwd: workspace() })
    const { result, events, toolUseId } = await kernel.callTool('Read', { file_path: 42 })
    expect(result?.is_error).toBe(true)
    expect(textOf(result?.content)).toContain('file_path')
    expect(events.find((e) => e.type === 'tool.rejected' && e.toolUseId === toolUseId)).toMatchObject({
      step: 'validate',
    })
    const notAnObject = await kernel.callTool('Read', 'README.md')
    expect(notAnObject.result?.is_error).toBe(true)
  })

  it('throws for a name that is no tool of the kernel, and records nothing', async () => {
    const kernel = testKernel([Read], { cwd: workspace() })
    await expect(kernel.callTool('Reed', {})).rejects.toThrow(/no tool named "Reed" in this kernel \(Read/)
    await expect(kernel.callTool('', {})).rejects.toThrow(TypeError)
    await expect(kernel.callTool('Read', {}, { signl: 1 } as never)).rejects.toThrow(/signl/)
    expect(kernel.log.read()).toEqual([])
    // An alias names the tool, as it does for the model.
    const aliased = await kernel.callTool('ReadFile', { file_path: join(workspace(), 'missing.txt') })
    expect(aliased.result?.is_error).toBe(true)
  })

  it('aborts a running call through its signal: an interrupted result, still paired', async () => {
    const { tool, running } = waiter()
    const kernel = testKernel([tool])
    const controller = new AbortController()
    const pending = kernel.callTool('Wait', {}, { signal: controller.signal })
    await running
    controller.abort()
    const { result, events, toolUseId } = await pending
    expect(result?.is_error).toBe(true)
    expect(textOf(result?.content)).toMatch(/interrupt/i)
    expect(events.filter((e) => e.type === 'tool.result' && e.toolUseId === toolUseId)).toHaveLength(1)
  })

  it('an already aborted signal cancels the call before it starts', async () => {
    const { tool } = waiter()
    const kernel = testKernel([tool])
    const { result, events, toolUseId } = await kernel.callTool('Wait', {}, { signal: AbortSignal.abort() })
    expect(result?.is_error).toBe(true)
    expect(ofCall(events, toolUseId)).not.toContain('tool.started')
  })

  it('parks an ask nobody answers: pending, no result yet; kernel.answer goes on with it', async () => {
    const kernel = testKernel([Asker])
    const first = await kernel.callTool('Asker', { text: 'x' })
    expect(first.result).toBeUndefined()
    expect(first.pending.map((p) => [p.toolUseId, p.tool, p.reason])).toEqual([
      [first.toolUseId, 'Asker', 'it changes things'],
    ])
    const done = await kernel.answer(first.toolUseId, { behavior: 'allow', digest: first.pending[0]?.digest ?? '' })
    expect(done.message.content).toEqual([{ type: 'tool_result', tool_use_id: first.toolUseId, content: 'ran x' }])
  })
})
