/**
 * The pool issue's "done when": an app with 200 tools (190 deferred) runs a multi-turn session
 * in which the model finds and calls deferred tools through ToolSearch, crashes mid-turn (its
 * JSONL log cut off inside a line), resumes from the log, and still has every loaded tool.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, createJsonlLog, createKernel, parseJsonl, replay, type KernelEvent } from '../../../src/index.js'
import { loadedFromLog } from '../../../src/tools/pool/pool-log.js'
import { assistant } from '../../helpers.js'
import { syntheticTool } from './synthetic.js'

const dir = mkdtempSync(join(tmpdir(), 'toolkernel-pool-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let release: () => void = () => undefined
const Hang = buildTool({
  name: 'Hang',
  description: () => 'Waits until released.',
  inputSchema: z.strictObject({}),
  async call() {
    await new Promise<void>((resolve) => (release = resolve))
    return 'released'
  },
})
const tools = [
  Hang,
  ...Array.from({ length: 9 }, (_, i) => syntheticTool(1000 + i, { defer: false })),
  ...Array.from({ length: 190 }, (_, i) => syntheticTool(i)),
]

const chatNames = (kernel: ReturnType<typeof createKernel>) =>
  kernel.apiTools({ format: 'openai-chat' }).map((t) => t.function.name)

describe('200 tools, 190 deferred: find, call, crash, resume', () => {
  it('keeps every loaded tool through a crash mid-turn and a resume from the JSONL log', async () => {
    const path = join(dir, 'session.jsonl')
    const kernel = createKernel({ tools, log: createJsonlLog(path) })
    const anthropic = kernel.apiTools()
    expect(anthropic.filter((t) => t.defer_loading === true)).toHaveLength(190)
    expect(anthropic[0]?.name).toBe('ToolSearch')

    // Turn 1: the model searches; the best matches are loaded.
    const t1 = await kernel.runTurn(assistant(['s1', 'ToolSearch', { query: 'delete stripe', max_results: 2 }]))
    const refs = t1.message.content[0]?.content as Array<{ type: string; tool_name: string }>
    expect(refs.map((r) => r.type)).toEqual(['tool_reference', 'tool_reference'])
    const found = refs.map((r) => r.tool_name)
    expect(found.every((n) => n.startsWith('mcp__stripe__delete_'))).toBe(true)

    // Turn 2: it calls one of them, and a tool sent in full.
    const t2 = await kernel.runTurn(
      assistant(['c1', found[0] as string, { id: 'inv_1' }], ['c2', tools[1]?.name as string, { id: 'x' }]),
    )
    expect(t2.message.content.map((b) => b.is_error ?? false)).toEqual([false, false])

    // Turn 3: it selects two more by name.
    const picked = [tools[20]?.name as string, tools[60]?.name as string]
    await kernel.runTurn(assistant(['s2', 'ToolSearch', { query: `select:${picked.join(',')}` }]))
    const loaded = [...found, ...picked]
    expect(loadedFromLog(kernel.log.read())).toEqual(loaded)

    // Turn 4: a call to an unloaded deferred tool (loaded by the call), then the process dies mid-call.
    const late = tools[150]?.name as string
    void kernel.runTurn(assistant(['c3', late, { id: 'y' }], ['h1', 'Hang', {}]))
    await waitFor(() => kernel.log.read().some((e) => e.type === 'tool.started' && e.toolUseId === 'h1'))
    await kernel.log.fence?.()
    const whole = readFileSync(path, 'utf8')
    const cut = join(dir, 'cut.jsonl')
    writeFileSync(cut, whole.slice(0, whole.length - 7)) // the last line torn
    release()

    // A new process: a kernel over the cut log, resumed.
    const resumed = createKernel({ tools }).resume(createJsonlLog(cut))
    await resumed.log.fence?.()
    const after = parseJsonl(readFileSync(cut, 'utf8'))
    expect(after.events.some((e) => e.type === 'turn.recovered')).toBe(true)
    expect(resumed.refreshTools().loaded).toEqual([...loaded, late])
    expect(chatNames(resumed).slice(-5)).toEqual([...loaded, late])
    const t5 = await resumed.runTurn(assistant(['c4', picked[1] as string, { id: 'z' }], ['c5', late, { id: 'w' }]))
    expect(t5.message.content.map((b) => b.content)).toEqual([`${picked[1]}(z)`, `${late}(w)`])
    // Nothing had to be loaded again: the log kept the loaded set.
    expect(t5.events.filter((e: KernelEvent) => e.type === 'tool.loaded')).toEqual([])
    // And the whole session re-executes as recorded: ToolSearch's answers and loads included.
    await resumed.log.fence?.()
    const result = await replay(parseJsonl(readFileSync(cut, 'utf8')).events, { tools })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
  })
})

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setImmediate(resolve))
  if (!check()) throw new Error('condition not reached')
}
