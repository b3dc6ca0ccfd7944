/**
 * `context.runChild`'s options at work (docs/subagents.md): the prompt the child's model is told
 * (checked, recorded in the child turn's `turn.started`, sent by the Agent tool), the budget
 * (`maxTurns`, `messageBudgetChars`), the caller's own signal, and the Agent tool's own turn limit.
 * The Agent tests run the real Anthropic SDK against the loopback model API.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  createAgentTool,
  createKernel,
  createMemoryLog,
  recover,
  replay,
  type AgentModel,
  type ChildOptions,
  type ChildSession,
  type KernelEvent,
  type Tool,
} from '../../src/index.js'
import { startModelApi, type ModelApi } from '../model-api/server.js'
import { gate } from '../helpers.js'
import { holdTool, loopbackAgentModel } from './subagent-helpers.js'

let api: ModelApi
beforeEach(async () => {
  api = await startModelApi()
})
afterEach(async () => {
  await api.close()
})

type Message = Parameters<ReturnType<typeof createKernel>['runTurn']>[0]

const call = (id: string, name: string, input: object = {}): Message =>
  ({ role: 'assistant', stop_reason: 'tool_use', content: [{ type: 'tool_use', id, name, input }] }) as Message

/** The model port over the loopback API through the SDK. */
const agentModel = (): AgentModel => loopbackAgentModel(api.url)

const Look = buildTool({
  name: 'Look',
  description: () => 'Looks.',
  inputSchema: z.object({ at: z.string() }),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  call: async ({ at }) => `saw ${at}`,
})

/**
 * A parent tool `Open` that opens a child with `options` and hands the session to `use`; its
 * result is what `use` returns, or the error it throws.
 */
function opener(options: ChildOptions, use: (child: ChildSession) => Promise<string>): Tool {
  return buildTool({
    name: 'Open',
    description: () => 'Opens a child.',
    inputSchema: z.object({}),
    interruptBehavior: () => 'cancel',
    call: async (_input, context) => {
      const child = context.runChild?.(options)
      if (child === undefined) throw new Error('no runChild')
      return use(child)
    },
  })
}

const childCall = (id: string, name: string, input: object = {}) => ({
  role: 'assistant',
  stop_reason: 'tool_use',
  content: [{ type: 'tool_use', id, name, input }],
})

const childTurnsOf = (events: readonly KernelEvent[]) =>
  events.filter((e) => e.type === 'turn.started' && e.parentToolUseId !== undefined)

describe("runChild's prompt", () => {
  it('is recorded in the child turn and handed back on the session', async () => {
    const kernel = createKernel({
      tools: [
        Look,
        opener({ prompt: 'You look at things.' }, async (child) => {
          await child.runTurn(childCall('c1', 'Look', { at: 'x' }))
          return `prompt: ${String(child.prompt)}`
        }),
      ],
    })
    const { message } = await kernel.runTurn(call('p1', 'Open'))
    expect(message.content[0]?.content).toBe('prompt: You look at things.')
    const [started] = childTurnsOf(kernel.log.read())
    expect(started).toMatchObject({ child: { prompt: 'You look at things.' } })
  })

  it('is absent from session and log when not given', async () => {
    const kernel = createKernel({
      tools: [
        Look,
        opener({}, async (child) => {
          await child.runTurn(childCall('c1', 'Look', { at: 'x' }))
          return `prompt: ${String(child.prompt)}`
        }),
      ],
    })
    const { message } = await kernel.runTurn(call('p1', 'Open'))
    expect(message.content[0]?.content).toBe('prompt: undefined')
    const [started] = childTurnsOf(kernel.log.read())
    expect(started?.type === 'turn.started' && started.child !== undefined && 'prompt' in started.child).toBe(false)
  })

  it('that is not a string is refused by name', async () => {
    for (const prompt of [42, null, ['a'], { text: 'a' }]) {
      const kernel = createKernel({
        tools: [Look, opener({ prompt } as unknown as ChildOptions, async () => 'opened')],
      })
      const { message } = await kernel.runTurn(call('p1', 'Open'))
      expect(message.content[0]).toMatchObject({ is_error: true })
      expect(String(message.content[0]?.content)).toContain('context.runChild: prompt must be a string')
    }
  })

  it("the Agent tool sends its definition's prompt through runChild: the log records what the subagent was told", async () => {
    api.script({ calls: [{ name: 'Look', input: { at: 'the sky' } }] }, { text: 'It is blue.' })
    const prompt = 'You look at the sky and say its colour.'
    const kernel = createKernel({
      tools: [
        Look,
        createAgentTool({
          model: agentModel(),
          agents: { looker: { description: 'Looks at things.', prompt, tools: ['Look'] } },
        }),
      ],
    })
    const { message } = await kernel.runTurn(
      call('a1', 'Agent', { description: 'Look up', prompt: 'What colour is the sky?' }),
    )
    expect(message.content[0]?.content).toBe('It is blue.')
    expect(api.requests.map((r) => (r.body as { system?: unknown }).system)).toEqual([prompt, prompt])
    const log = kernel.log.read()
    expect(childTurnsOf(log)).toEqual([expect.objectContaining({ child: expect.objectContaining({ prompt }) })])
    const replayed = await replay(log, { tools: kernel.tools })
    expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
  })

  it('a log written before the prompt was recorded (no `prompt`) still replays and recovers', async () => {
    api.script({ calls: [{ name: 'Look', input: { at: 'the sky' } }] }, { text: 'It is blue.' })
    const kernel = createKernel({ tools: [Look, createAgentTool({ model: agentModel() })] })
    await kernel.runTurn(call('a1', 'Agent', { description: 'Look up', prompt: 'What colour is the sky?' }))
    const older = kernel.log.read().map((event) => {
      if (event.type !== 'turn.started' || event.child === undefined) return event
      const { prompt: _prompt, ...child } = event.child
      return { ...event, child }
    })
    expect(JSON.stringify(older)).not.toContain('"prompt":"You are a subagent')
    const replayed = await replay(older, { tools: kernel.tools })
    expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
    expect(recover(older)).toEqual([])
    // Cut off after the child turn opened: recovery closes it as it did before.
    const cut = older.slice(0, older.findIndex((e) => e.type === 'turn.started' && e.child !== undefined) + 1)
    const log = createMemoryLog({ now: () => 0 })
    for (const event of cut) log.append(event)
    const resumed = createKernel({ tools: [Look, createAgentTool({ model: agentModel() })] }).resume(log)
    expect(recover(resumed.log.read())).toEqual([])
  })
})

describe("runChild's budget", () => {
  it('maxTurns: a turn past it is refused in words, the turns before it ran', async () => {
    const ran: number[] = []
    const kernel = createKernel({
      tools: [
        Look,
        opener({ budget: { maxTurns: 2 } }, async (child) => {
          for (let turn = 1; turn <= 3; turn++) {
            await child.runTurn(childCall(`c${turn}`, 'Look', { at: String(turn) }))
            ran.push(turn)
          }
          return 'three turns'
        }),
      ],
    })
    const { message } = await kernel.runTurn(call('p1', 'Open'))
    expect(ran).toEqual([1, 2])
    expect(message.content[0]).toMatchObject({ is_error: true })
    expect(String(message.content[0]?.content)).toContain(
      'the child session of call p1 has used all 2 of its turns (budget.maxTurns)',
    )
    expect(childTurnsOf(kernel.log.read())).toHaveLength(2)
  })

  it('maxTurns counts streamed turns too', async () => {
    const kernel = createKernel({
      tools: [
        Look,
        opener({ budget: { maxTurns: 1 } }, async (child) => {
          const turn = child.startTurn()
          turn.end('end_turn')
          await turn.result()
          child.startTurn()
          return 'two turns'
        }),
      ],
    })
    const { message } = await kernel.runTurn(call('p1', 'Open'))
    expect(String(message.content[0]?.content)).toContain('has used all 1 of its turns (budget.maxTurns)')
  })

  it("messageBudgetChars: a child turn's results past it are persisted, under the kernel's larger budget", async () => {
    const Print = buildTool({
      name: 'Print',
      description: () => 'Prints chars characters.',
      inputSchema: z.strictObject({ chars: z.number() }),
      isReadOnly: () => true,
      call: async ({ chars }) => 'x'.repeat(chars),
    })
    const saved: string[] = []
    const results = { save: async ({ toolUseId }: { toolUseId: string }) => (saved.push(toolUseId), `/r/${toolUseId}`) }
    const childRun = (budget: ChildOptions['budget']) =>
      opener(budget === undefined ? {} : { budget }, async (child) => {
        const { message } = await child.runTurn(childCall('c1', 'Print', { chars: 3_000 }))
        return String(message.content[0]?.content).length === 3_000 ? 'whole' : 'persisted'
      })
    // The kernel's own budget (100,000) keeps 3,000 characters whole; the child's 1,000 does not.
    const loose = createKernel({ tools: [Print, childRun(undefined)], results })
    expect((await loose.runTurn(call('p1', 'Open'))).message.content[0]?.content).toBe('whole')
    expect(saved).toEqual([])
    const tight = createKernel({ tools: [Print, childRun({ messageBudgetChars: 1_000 })], results })
    expect((await tight.runTurn(call('p1', 'Open'))).message.content[0]?.content).toBe('persisted')
    expect(saved).toEqual(['c1'])
    const log = tight.log.read()
    expect(childTurnsOf(log)).toEqual([
      expect.objectContaining({ child: expect.objectContaining({ messageBudgetChars: 1_000 }) }),
    ])
    expect(log.some((e) => e.type === 'tool.completed' && e.toolUseId === 'c1' && e.persisted === true)).toBe(true)
  })
})

describe("the caller's signal", () => {
  it("stops the child's running call; the parent call goes on and answers", async () => {
    const { hold, started } = holdTool()
    const controller = new AbortController()
    const kernel = createKernel({
      tools: [
        hold,
        opener({ signal: controller.signal }, async (child) => {
          const turn = child.runTurn(childCall('c1', 'Hold'))
          await started
          controller.abort('enough')
          const { aborted, message } = await turn
          return `aborted: ${String(aborted)}; ${String(message.content[0]?.content)}`
        }),
      ],
    })
    const { message } = await kernel.runTurn(call('p1', 'Open'))
    // The parent call itself was not aborted: it has its own, successful result.
    expect(message.content[0]).not.toHaveProperty('is_error')
    expect(String(message.content[0]?.content)).toMatch(/^aborted: true; /)
    const log = kernel.log.read()
    expect(log.filter((e) => e.type === 'tool.result' && e.toolUseId === 'c1')).toEqual([
      expect.objectContaining({ outcome: 'cancelled', parentToolUseId: 'p1' }),
    ])
    expect(log.some((e) => e.type === 'turn.aborted' && e.parentToolUseId === 'p1')).toBe(true)
    expect(log.filter((e) => e.type === 'tool.result' && e.toolUseId === 'p1')).toEqual([
      expect.objectContaining({ outcome: 'success' }),
    ])
  })

  it('already aborted: the child turn starts nothing and every call says why', async () => {
    const ran: string[] = []
    const Mark = buildTool({
      name: 'Mark',
      description: () => 'Marks.',
      inputSchema: z.object({}),
      call: async () => (ran.push('Mark'), 'marked'),
    })
    const kernel = createKernel({
      tools: [
        Mark,
        opener({ signal: AbortSignal.abort('too late') }, async (child) => {
          const { aborted, message } = await child.runTurn(childCall('c1', 'Mark'))
          return `aborted: ${String(aborted)}; error: ${String(message.content[0]?.is_error)}`
        }),
      ],
    })
    const { message } = await kernel.runTurn(call('p1', 'Open'))
    expect(message.content[0]?.content).toBe('aborted: true; error: true')
    expect(ran).toEqual([])
  })
})

describe("the Agent tool's own turn limit", () => {
  const looks = (n: number) =>
    Array.from({ length: n }, (_, k) => ({ calls: [{ name: 'Look', input: { at: `${k}` } }] }))

  it('stops a subagent that is still calling tools after maxTurns model requests, with its last words', async () => {
    api.script(...looks(2))
    const kernel = createKernel({ tools: [Look, createAgentTool({ model: agentModel(), maxTurns: 2 })] })
    const { message } = await kernel.runTurn(call('a1', 'Agent', { description: 'Look', prompt: 'Look forever.' }))
    // A third request would be out of script (a 400): the limit stopped the loop first.
    expect(api.requests).toHaveLength(2)
    expect(api.rejected()).toEqual([])
    expect(String(message.content[0]?.content)).toMatch(
      /^The subagent \(general-purpose\) made 2 model requests without finishing its task, so it was stopped/,
    )
    expect(childTurnsOf(kernel.log.read())).toHaveLength(2)
  })

  it("a subagent's own maxTurns overrides the tool's", async () => {
    api.script(...looks(1))
    const Agent = createAgentTool({
      model: agentModel(),
      maxTurns: 5,
      agents: { brief: { description: 'Brief.', prompt: 'Be brief.', maxTurns: 1 } },
    })
    const kernel = createKernel({ tools: [Look, Agent] })
    const { message } = await kernel.runTurn(call('a1', 'Agent', { description: 'Look', prompt: 'Look.' }))
    expect(api.requests).toHaveLength(1)
    expect(String(message.content[0]?.content)).toContain('The subagent (brief) made 1 model requests')
  })
})

describe("a child session's life under its call", () => {
  const Deploy = buildTool({
    name: 'Deploy',
    description: () => 'Deploys.',
    inputSchema: z.object({}),
    checkPermissions: () => ({ behavior: 'ask', message: 'deploys need a person' }),
    call: async () => 'deployed',
  })

  it('two child turns parked at once: the parent call waits until both are answered', async () => {
    const kernel = createKernel({
      tools: [
        Deploy,
        opener({}, async (child) => {
          const results = await Promise.all([
            child.runTurn(childCall('c1', 'Deploy')),
            child.runTurn(childCall('c2', 'Deploy')),
          ])
          return results.map(({ message }) => String(message.content[0]?.content)).join(', ')
        }),
      ],
    })
    const first = await kernel.runTurn(call('p1', 'Open'))
    // The parent turn settles once both child turns are parked: its result lists both calls.
    expect(first.pending.map((p) => [p.toolUseId, p.parentToolUseId])).toEqual([
      ['c1', 'p1'],
      ['c2', 'p1'],
    ])
    // One answer moves one child turn on; the other still waits, and so does the parent call.
    const second = await kernel.answer('c1', { behavior: 'allow' })
    expect(second.pending.map((p) => p.toolUseId)).toEqual(['c2'])
    expect(kernel.log.read().some((e) => e.type === 'tool.result' && e.toolUseId === 'p1')).toBe(false)
    const done = await kernel.answer('c2', { behavior: 'allow' })
    expect(done.pending).toEqual([])
    expect(done.message.content[0]?.content).toBe('deployed, deployed')
    // The parent turn parked twice (both calls, then the one left) and replays as it ran.
    const log = kernel.log.read()
    const parentParks = log.filter((e) => e.type === 'turn.parked' && e.parentToolUseId === undefined)
    expect(parentParks).toHaveLength(2)
    // The second park comes once the answered child turn is over, after its turn.completed.
    const firstChildOver = log.find((e) => e.type === 'turn.completed' && e.parentToolUseId === 'p1')
    expect(firstChildOver?.seq).toBeLessThan(parentParks[1]?.seq ?? -1)
    const replayed = await replay(log, { tools: kernel.tools })
    expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
  })

  it('takes no more turns once its call has its result: the tool kept the session past its answer', async () => {
    let kept: ChildSession | undefined
    const kernel = createKernel({
      tools: [
        Look,
        opener({}, async (child) => {
          kept = child
          return 'opened'
        }),
      ],
    })
    const { message } = await kernel.runTurn(call('p1', 'Open'))
    expect(message.content[0]?.content).toBe('opened')
    await expect(kept?.runTurn(childCall('c1', 'Look', { at: 'late' }))).rejects.toThrow(
      'context.runChild: call p1 has its result; its child session takes no more turns',
    )
    expect(() => kept?.startTurn()).toThrow('call p1 has its result')
    expect(childTurnsOf(kernel.log.read())).toEqual([])
  })

  it("takes no more turns once its call's deadline has answered it, though the tool goes on", async () => {
    const release = gate()
    let late: Promise<string> | undefined
    const Open = buildTool({
      name: 'Open',
      description: () => 'Opens a child, then waits past its deadline, ignoring its signal.',
      inputSchema: z.object({}),
      timeoutMs: 25,
      call: async (_input, context) => {
        const child = context.runChild?.()
        await release.opened
        late = child?.runTurn(childCall('c1', 'Look', { at: 'late' })).then(
          () => 'took a turn',
          (error: unknown) => String(error),
        )
        return 'too late'
      },
    })
    const kernel = createKernel({ tools: [Look, Open] })
    const { message } = await kernel.runTurn(call('p1', 'Open'))
    expect(message.content[0]).toMatchObject({ is_error: true })
    release.open()
    await vi.waitFor(() => expect(late).toBeDefined())
    expect(await late).toContain('call p1 has its result; its child session takes no more turns')
    expect(childTurnsOf(kernel.log.read())).toEqual([])
  })
})
