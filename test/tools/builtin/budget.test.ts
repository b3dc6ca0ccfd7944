import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, createDirectoryResultStore, resultFileName, type KernelEvent } from '../../../src/index.js'
import { assistant, testKernel } from '../../helpers.js'
import { project, text } from './setup.js'

describe('the budget step', () => {
  it('persists a large Bash output and gives the model its head, its tail, the sizes and the path', async () => {
    // Past Bash's 30,000-character budget, below what Bash streams itself (64 KiB): the budget step's case.
    const { kernel } = project()
    const { message, events } = await kernel.runTurn(
      assistant(['big', 'Bash', { command: 'seq 1 10000; echo "error: at the very end" >&2; exit 2' }]),
    )
    const preview = text(message.content[0] as never)
    const saved = events.find((e) => e.type === 'tool.budgeted') as Extract<KernelEvent, { type: 'tool.budgeted' }>
    expect(saved.path).toMatch(/\/big-[0-9a-f]{12}\.txt$/)
    const full = readFileSync(saved.path ?? '', 'utf8')
    expect(full.split('\n')).toHaveLength(10003)
    expect(saved.chars).toBe(full.length)
    expect(preview).toMatch(
      new RegExp(
        `^Output too large to show whole \\(${full.length} characters, 10003 lines\\); the full output is saved to ${saved.path} — read parts of it with Read`,
      ),
    )
    expect(preview).toContain('First 2000 characters:\n1\n2\n3\n')
    expect(preview).toMatch(/Last 2000 characters:\n[\s\S]*9999\n10000\nerror: at the very end\n\nexit code 2$/)
    expect(preview.length).toBeLessThan(5000)
    // The log keeps a reference, not the megabytes.
    expect(events.find((e) => e.type === 'tool.completed')).toMatchObject({ persisted: true })
    // Progress keeps at most its allowance of text (32,000 characters), whatever the output.
    const progress = events.filter((e) => e.type === 'tool.progress').map((e) => String(e.data))
    expect(
      progress.join('').replace(/\[… \d+ characters of progress not kept in the log\]/g, '').length,
    ).toBeLessThanOrEqual(32_000)
  })

  it('never lets a tool_use id write outside the store', async () => {
    expect(resultFileName({ turnId: 'turn_1', toolUseId: 'toolu_01ABC' })).toMatch(/^toolu_01ABC-[0-9a-f]{12}\.txt$/)
    expect(resultFileName({ turnId: 'turn_1', toolUseId: '../../etc/x' })).toMatch(/^etc_x-[0-9a-f]{12}\.txt$/)
    const { root } = project()
    const store = createDirectoryResultStore(join(root, 'store'))
    const path = await store.save({ turnId: 'turn_1', toolUseId: '../../etc/x' }, 'data')
    expect(path.startsWith(join(root, 'store') + '/')).toBe(true)
    expect(readdirSync(join(root, 'store'))).toHaveLength(1)
  })

  it('keeps a turn within its message budget: results that would overflow it are persisted', async () => {
    const Blob = buildTool({
      name: 'Blob',
      description: () => 'b',
      inputSchema: z.object({ n: z.number() }),
      isConcurrencySafe: () => true,
      call: async ({ n }) => `${n}`.repeat(60_000),
    })
    const { root } = project()
    const kernel = testKernel([Blob], {
      results: createDirectoryResultStore(join(root, 'r')),
      messageBudgetChars: 150_000,
    })
    const { message } = await kernel.runTurn(
      assistant(['a', 'Blob', { n: 1 }], ['b', 'Blob', { n: 2 }], ['c', 'Blob', { n: 3 }]),
    )
    const sizes = message.content.map((b) => text(b).length)
    expect(sizes.filter((s) => s === 60_000)).toHaveLength(2)
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(150_000)
    expect(readdirSync(join(root, 'r'))).toHaveLength(1)
  })

  it('says so when the store cannot save, and still shows head and tail', async () => {
    const Blob = buildTool({
      name: 'Blob',
      description: () => 'b',
      inputSchema: z.object({}),
      maxResultSizeChars: 10,
      call: async () => `${'h'.repeat(2_500)}${'t'.repeat(2_500)}`,
    })
    const kernel = testKernel([Blob], {
      results: {
        save: async () => {
          throw new Error('disk full')
        },
      },
    })
    const { message } = await kernel.runTurn(assistant(['a', 'Blob', {}]))
    expect(text(message.content[0] as never)).toMatch(
      /^Output too large to show whole \(5000 characters, 1 lines\); it could not be saved \(disk full\), so only its beginning and end are shown\.\n\nFirst 2000 characters:\nh{2000}\n\[… 1000 characters omitted …\]\nLast 2000 characters:\nt{2000}$/,
    )
    expect(existsSync('/nonexistent')).toBe(false)
  })
})

describe('the budget step, interrupted', () => {
  it('a discard while the output is being saved still gives a preview, never the whole output', async () => {
    const { buildTool: build } = await import('../../../src/index.js')
    const Blob = build({
      name: 'Blob',
      description: () => 'b',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      maxResultSizeChars: 10,
      call: async () => 'y'.repeat(5000),
    })
    let saving!: () => void
    const started = new Promise<void>((resolve) => (saving = resolve))
    const kernel = testKernel([Blob], { results: { save: () => (saving(), new Promise<string>(() => {})) } })
    const turn = kernel.startTurn()
    turn.addToolUse({ id: 'a', name: 'Blob', input: {} })
    turn.end()
    await started
    turn.discard()
    const { events } = await turn.result()
    const result = events.find((e) => e.type === 'tool.result') as Extract<KernelEvent, { type: 'tool.result' }>
    expect(String(result.block.content)).toMatch(
      /^Output too large to show whole \(5000 characters, 1 lines\); it could not be saved \(the turn was interrupted before it was saved\)/,
    )
    expect(String(result.block.content).length).toBeLessThan(4500)
  })
})
