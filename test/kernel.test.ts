import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, createKernel, projectMessages, type KernelEvent, type ToolResultBlock } from '../src/index.js'
import { resolveMaxConcurrency } from '../src/kernel.js'
import { assistant, Echo, gate, testKernel } from './helpers.js'

const content = (block: ToolResultBlock | undefined) => block?.content
const types = (events: readonly KernelEvent[], id: string) =>
  events.filter((e) => 'toolUseId' in e && e.toolUseId === id).map((e) => e.type)

describe('runTurn: the happy path', () => {
  it('answers each tool_use once, in order, and ignores text blocks', async () => {
    const kernel = testKernel([Echo])
    const { message } = await kernel.runTurn({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me echo.' },
        { type: 'tool_use', id: 'a', name: 'Echo', input: { text: 'one' } },
        { type: 'tool_use', id: 'b', name: 'Say', input: { text: 'two', times: 2 } },
      ],
    })
    expect(message).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: 'one' },
        { type: 'tool_result', tool_use_id: 'b', content: 'twotwo' },
      ],
    })
  })

  it('records every step of a call as an event, in order', async () => {
    const { events } = await testKernel([Echo]).runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(types(events, 'a')).toEqual([
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
  })

  it('gives an empty message, not an error, for a message without tool_use', async () => {
    const kernel = testKernel([Echo])
    expect((await kernel.runTurn({ role: 'assistant', content: 'just text' })).message).toEqual({
      role: 'user',
      content: [],
    })
    expect(
      (await kernel.runTurn({ role: 'assistant', content: [{ type: 'text', text: 'hi' }] })).message.content,
    ).toEqual([])
  })

  it('says so when a tool returns nothing', async () => {
    const Quiet = buildTool({
      name: 'Quiet',
      description: () => 'q',
      inputSchema: z.object({}),
      call: async () => undefined,
    })
    const { message } = await testKernel([Quiet]).runTurn(assistant(['q', 'Quiet', {}]))
    expect(content(message.content[0])).toBe('(Quiet completed with no output)')
  })

  it('renders structured output as JSON and keeps a custom mapper’s blocks', async () => {
    const Data = buildTool({
      name: 'Data',
      description: () => 'd',
      inputSchema: z.object({}),
      call: async () => ({ n: 1 }),
    })
    const Pic = buildTool({
      name: 'Pic',
      description: () => 'p',
      inputSchema: z.object({}),
      call: async () => 'iVBORw0KGgo=',
      mapToolResultToToolResultBlockParam: (data, id) => ({
        type: 'tool_result',
        tool_use_id: id,
        content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }],
      }),
    })
    const { message } = await testKernel([Data, Pic]).runTurn(assistant(['d', 'Data', {}], ['p', 'Pic', {}]))
    expect(content(message.content[0])).toBe('{\n  "n": 1\n}')
    expect(content(message.content[1])).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
    ])
  })

  it('passes progress to the log, never into the result', async () => {
    const Steps = buildTool({
      name: 'Steps',
      description: () => 's',
      inputSchema: z.object({}),
      async *call(_input, ctx) {
        yield 'step 1'
        ctx.onProgress({ pct: 50 })
        yield 'step 2'
        return 'done'
      },
    })
    const { message, events } = await testKernel([Steps]).runTurn(assistant(['s', 'Steps', {}]))
    expect(content(message.content[0])).toBe('done')
    expect(events.filter((e) => e.type === 'tool.progress').map((e) => (e as { data: unknown }).data)).toEqual([
      'step 1',
      { pct: 50 },
      'step 2',
    ])
  })

  it('hands the tool its context: cwd, tool_use id, ports and a signal', async () => {
    let seen: unknown
    const Ctx = buildTool({
      name: 'Ctx',
      description: () => 'c',
      inputSchema: z.object({}),
      call: async (_i, ctx) => {
        seen = { cwd: ctx.cwd, id: ctx.toolUseId, aborted: ctx.signal.aborted, now: typeof ctx.ports.clock.now() }
        return ''
      },
    })
    await testKernel([Ctx], { cwd: '/somewhere' }).runTurn(assistant(['c1', 'Ctx', {}]))
    expect(seen).toEqual({ cwd: '/somewhere', id: 'c1', aborted: false, now: 'number' })
  })
})

describe('runTurn: calls that end early get a result the model can act on', () => {
  it('unknown tool: names the tools and suggests the closest', async () => {
    const { message, events } = await testKernel([Echo]).runTurn(assistant(['x', 'Ecoh', { text: 'x' }]))
    expect(message.content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'x',
      is_error: true,
      content: '<tool_use_error>No such tool: "Ecoh". Did you mean "Echo"? Available tools: Echo.</tool_use_error>',
    })
    expect(events.find((e) => e.type === 'tool.rejected')).toMatchObject({ step: 'parse', code: 'unknown_tool' })
  })

  it('input that is not an object', async () => {
    const { message } = await testKernel([Echo]).runTurn(assistant(['x', 'Echo', ['text']]))
    expect(content(message.content[0])).toBe(
      '<tool_use_error>The input for Echo must be a JSON object of named fields, but it was an array. Expected: { text: string, times?: integer }</tool_use_error>',
    )
  })

  it('validation: each bad field in words, plus a schema hint', async () => {
    const { message } = await testKernel([Echo]).runTurn(assistant(['x', 'Echo', { txt: 'x', times: 'twice' }]))
    expect(content(message.content[0])).toBe(
      '<tool_use_error>Invalid input for Echo:\n- missing required field `text` (expected string)\n- `times` must be a number, got a string\n- unexpected field `txt`\nExpected: { text: string, times?: integer }</tool_use_error>',
    )
    expect(message.content[0]?.is_error).toBe(true)
  })

  it('validateInput failure, whether sync, async or thrown', async () => {
    const make = (name: string, validateInput: () => unknown) =>
      buildTool({
        name,
        description: () => 'v',
        inputSchema: z.object({}),
        validateInput: validateInput as never,
        call: async () => 'ran',
      })
    const tools = [
      make('Sync', () => ({ result: false, message: 'path is outside the project' })),
      make('Async', async () => ({ result: false, message: 'file changed on disk' })),
      make('Throws', () => {
        throw new Error('validator bug')
      }),
      make('Fine', async () => ({ result: true })),
    ]
    const { message } = await testKernel(tools).runTurn(
      assistant(['s', 'Sync', {}], ['a', 'Async', {}], ['t', 'Throws', {}], ['f', 'Fine', {}]),
    )
    expect(message.content.map(content)).toEqual([
      '<tool_use_error>Sync rejected its input: path is outside the project</tool_use_error>',
      '<tool_use_error>Async rejected its input: file changed on disk</tool_use_error>',
      '<tool_use_error>Throws rejected its input: its validator failed (validator bug)</tool_use_error>',
      'ran',
    ])
  })

  it('permission denial by the tool, and a checkPermissions that throws', async () => {
    const Denied = buildTool({
      name: 'Denied',
      description: () => 'd',
      inputSchema: z.object({}),
      checkPermissions: () => ({ behavior: 'deny', message: 'writes outside cwd' }),
      call: async () => 'ran',
    })
    const Broken = buildTool({
      name: 'Broken',
      description: () => 'b',
      inputSchema: z.object({}),
      checkPermissions: async () => {
        throw new Error('rules unreadable')
      },
      call: async () => 'ran',
    })
    const { message, events } = await testKernel([Denied, Broken]).runTurn(
      assistant(['d', 'Denied', {}], ['b', 'Broken', {}]),
    )
    expect(message.content.map(content)).toEqual([
      '<tool_use_error>Permission to use Denied was denied: writes outside cwd. Do not retry the same call; choose another approach or ask the user.</tool_use_error>',
      '<tool_use_error>Permission to use Broken was denied: the permission check failed (rules unreadable). Do not retry the same call; choose another approach or ask the user.</tool_use_error>',
    ])
    expect(events.find((e) => e.type === 'tool.permitted' && e.toolUseId === 'd')).toMatchObject({
      behavior: 'deny',
      source: 'tool',
      reason: 'writes outside cwd',
    })
    expect(events.some((e) => e.type === 'tool.started')).toBe(false)
  })

  it('"ask" goes to canUseTool, which may allow (with edited input, validated again), deny, or fail', async () => {
    const Asker = buildTool({
      name: 'Asker',
      description: () => 'a',
      inputSchema: z.object({ text: z.string() }),
      checkPermissions: () => ({ behavior: 'ask', message: 'runs a command' }),
      call: async ({ text }) => `ran ${text}`,
    })
    const answers: Record<string, unknown> = {
      allow: { behavior: 'allow' },
      edit: { behavior: 'allow', updatedInput: { text: 'edited' } },
      smuggle: { behavior: 'allow', updatedInput: { text: 'x', extra: true } },
      deny: { behavior: 'deny', message: 'not now' },
    }
    const kernel = testKernel([Asker], {
      canUseTool: async (request) => {
        if (request.toolUseId === 'boom') throw new Error('prompt crashed')
        expect(request).toMatchObject({ tool: 'Asker', reason: 'runs a command' })
        return answers[request.toolUseId] as never
      },
    })
    const { message } = await kernel.runTurn(
      assistant(
        ['allow', 'Asker', { text: 'a' }],
        ['edit', 'Asker', { text: 'b' }],
        ['smuggle', 'Asker', { text: 'c' }],
        ['deny', 'Asker', { text: 'd' }],
        ['boom', 'Asker', { text: 'e' }],
      ),
    )
    expect(message.content.map(content)).toEqual([
      'ran a',
      'ran edited',
      '<tool_use_error>Invalid input for Asker:\n- unexpected field `extra`\nExpected: { text: string }</tool_use_error>',
      '<tool_use_error>Permission to use Asker was denied: not now. Do not retry the same call; choose another approach or ask the user.</tool_use_error>',
      '<tool_use_error>Permission to use Asker was denied: the approval prompt failed (prompt crashed). Do not retry the same call; choose another approach or ask the user.</tool_use_error>',
    ])
  })

  it('"ask" without canUseTool, where the app chose approvals: deny, is denied with a message saying so', async () => {
    const Asker = buildTool({
      name: 'Asker',
      description: () => 'a',
      inputSchema: z.object({}),
      checkPermissions: () => ({ behavior: 'ask', message: 'deletes files' }),
      call: async () => 'ran',
    })
    const { message } = await testKernel([Asker], { approvals: 'deny' }).runTurn(assistant(['a', 'Asker', {}]))
    expect(content(message.content[0])).toMatch(
      /Asker needs approval \(deletes files\) and this app has no way to ask the user/,
    )
  })

  it('a tool that throws: an error result with the message, never a stack trace', async () => {
    const Fails = buildTool({
      name: 'Fails',
      description: () => 'f',
      inputSchema: z.object({ kind: z.string() }),
      async call({ kind }) {
        if (kind === 'type') throw new TypeError('bad thing')
        if (kind === 'string') throw 'plain string'
        if (kind === 'object') throw { code: 42 }
        if (kind === 'sync')
          return (() => {
            throw new Error('')
          })()
        throw new Error('disk full\n    at write (fs.js:1:1)')
      },
    })
    const { message } = await testKernel([Fails]).runTurn(
      assistant(
        ['1', 'Fails', { kind: 'type' }],
        ['2', 'Fails', { kind: 'string' }],
        ['3', 'Fails', { kind: 'object' }],
        ['4', 'Fails', { kind: 'sync' }],
        ['5', 'Fails', { kind: 'error' }],
      ),
    )
    expect(message.content.map(content)).toEqual([
      'Fails failed: TypeError: bad thing',
      'Fails failed: plain string',
      'Fails failed: {"code":42}',
      'Fails failed: Error',
      'Fails failed: disk full',
    ])
    expect(message.content.every((b) => b.is_error === true)).toBe(true)
  })

  it('a call() that throws synchronously, a disabled tool, and a mapper that throws or returns garbage', async () => {
    const SyncThrow = buildTool({
      name: 'SyncThrow',
      description: () => 's',
      inputSchema: z.object({}),
      call: (() => {
        throw new Error('sync boom')
      }) as never,
    })
    const Off = buildTool({
      name: 'Off',
      description: () => 'o',
      inputSchema: z.object({}),
      isEnabled: () => false,
      call: async () => 'ran',
    })
    const BadMap = buildTool({
      name: 'BadMap',
      description: () => 'b',
      inputSchema: z.object({}),
      call: async () => 'x',
      mapToolResultToToolResultBlockParam: () => {
        throw new Error('cannot render')
      },
    })
    const Garbage = buildTool({
      name: 'Garbage',
      description: () => 'g',
      inputSchema: z.object({}),
      call: async () => 'x',
      mapToolResultToToolResultBlockParam: () => ({ nope: true }) as never,
    })
    const { message } = await testKernel([SyncThrow, Off, BadMap, Garbage]).runTurn(
      assistant(['1', 'SyncThrow', {}], ['2', 'Off', {}], ['3', 'BadMap', {}], ['4', 'Garbage', {}]),
    )
    expect(message.content.map(content)).toEqual([
      'SyncThrow failed: sync boom',
      '<tool_use_error>The tool "Off" is disabled right now; use another tool or ask the user to enable it.</tool_use_error>',
      'BadMap ran, but its result could not be turned into text: cannot render',
      expect.stringMatching(
        /^Garbage ran, but its result could not be turned into text: its mapper returned something that is not a tool_result block/,
      ),
    ])
  })

  it('a mapper that names the wrong tool_use id is corrected', async () => {
    const Wrong = buildTool({
      name: 'Wrong',
      description: () => 'w',
      inputSchema: z.object({}),
      call: async () => 'x',
      mapToolResultToToolResultBlockParam: (o) => ({ type: 'tool_result', tool_use_id: 'other', content: String(o) }),
    })
    const { message } = await testKernel([Wrong]).runTurn(assistant(['mine', 'Wrong', {}]))
    expect(message.content[0]?.tool_use_id).toBe('mine')
  })
})

describe('runTurn: bad messages from the app', () => {
  it('rejects what is not an assistant message, naming the problem', async () => {
    const kernel = testKernel([Echo])
    await expect(kernel.runTurn({ role: 'user', content: [] } as never)).rejects.toThrow(/assistant message/)
    await expect(kernel.runTurn(null as never)).rejects.toThrow(TypeError)
  })
  it('rejects tool_use blocks without an id, and duplicate ids', async () => {
    const kernel = testKernel([Echo])
    await expect(
      kernel.runTurn({ role: 'assistant', content: [{ type: 'tool_use', id: '', name: 'Echo', input: {} }] }),
    ).rejects.toThrow(/content\[0\].*id must not be empty/s)
    await expect(kernel.runTurn(assistant(['a', 'Echo', { text: '' }], ['a', 'Echo', { text: '' }]))).rejects.toThrow(
      /"a" appears twice/,
    )
    expect(kernel.log.read()).toEqual([])
  })
})

describe('scheduling', () => {
  it('treats a call as unsafe when its input does not parse or its predicate throws', async () => {
    const Picky = buildTool({
      name: 'Picky',
      description: () => 'p',
      inputSchema: z.object({ n: z.number() }),
      isConcurrencySafe: ({ n }) => {
        if (n < 0) throw new Error('negative')
        return true
      },
      call: async ({ n }) => String(n),
    })
    const { events } = await testKernel([Picky]).runTurn(
      assistant(
        ['ok', 'Picky', { n: 1 }],
        ['bad', 'Picky', { n: 'x' }],
        ['throws', 'Picky', { n: -1 }],
        ['unknown', 'Nope', {}],
      ),
    )
    const queued = Object.fromEntries(
      events.filter((e) => e.type === 'tool.queued').map((e) => [e.toolUseId, [e.safe, e.reason]]),
    )
    expect(queued).toEqual({
      ok: [true, undefined],
      bad: [false, 'input does not validate'],
      throws: [false, 'isConcurrencySafe threw'],
      unknown: [false, 'unknown tool'],
    })
  })

  it('runs consecutive safe calls in one batch and each unsafe call alone, in order', async () => {
    const Unsafe = buildTool({
      name: 'Unsafe',
      description: () => 'u',
      inputSchema: z.object({}),
      call: async () => 'u',
    })
    const { events } = await testKernel([Echo, Unsafe]).runTurn(
      assistant(
        ['s1', 'Echo', { text: '' }],
        ['s2', 'Echo', { text: '' }],
        ['u1', 'Unsafe', {}],
        ['u2', 'Unsafe', {}],
        ['s3', 'Echo', { text: '' }],
      ),
    )
    const batches = events.filter((e) => e.type === 'tool.dispatched').map((e) => [e.toolUseId, e.batch])
    expect(batches).toEqual([
      ['s1', 0],
      ['s2', 0],
      ['u1', 1],
      ['u2', 2],
      ['s3', 3],
    ])
  })

  it('resolves the cap from option, then TOOLKERNEL_MAX_CONCURRENCY, then 10; rejects nonsense', () => {
    expect(resolveMaxConcurrency(3, '7')).toBe(3)
    expect(resolveMaxConcurrency(undefined, '7')).toBe(7)
    expect(resolveMaxConcurrency(undefined, undefined)).toBe(10)
    expect(() => resolveMaxConcurrency(0, undefined)).toThrow(/positive integer, got 0/)
    expect(() => resolveMaxConcurrency(undefined, 'lots')).toThrow(
      /TOOLKERNEL_MAX_CONCURRENCY must be a positive integer, got "lots"/,
    )
    expect(() => createKernel({ tools: [Echo], maxConcurrency: 1.5 })).toThrow(RangeError)
  })

  it('rejects tools that share a name or alias, and things that are not tools', () => {
    const Twin = buildTool({ name: 'Say', description: () => 't', inputSchema: z.object({}), call: async () => '' })
    expect(() => createKernel({ tools: [Echo, Twin] })).toThrow(/"Say" is used by both Echo and Say/)
    expect(() => createKernel({ tools: [{ name: 'x' }] as never })).toThrow(
      /tools\[0\] is not a tool made with buildTool/,
    )
  })
})

describe('abort', () => {
  it('cancels every call of a turn whose signal is already aborted, without running any', async () => {
    let ran = 0
    const Count = buildTool({
      name: 'Count',
      description: () => 'c',
      inputSchema: z.object({}),
      call: async () => String(++ran),
    })
    const { message, events } = await testKernel([Count]).runTurn(assistant(['a', 'Count', {}], ['b', 'Count', {}]), {
      signal: AbortSignal.abort('user pressed Esc'),
    })
    expect(ran).toBe(0)
    expect(message.content.map(content)).toEqual([
      'Count was cancelled before it ran: user pressed Esc. It had no effect; call it again if it is still needed.',
      'Count was cancelled before it ran: user pressed Esc. It had no effect; call it again if it is still needed.',
    ])
    expect(events.filter((e) => e.type === 'turn.aborted')).toHaveLength(1)
  })

  it("interrupts a running 'cancel' tool with its partial output, lets a 'block' tool finish, cancels the queue", async () => {
    const started = gate()
    const release = gate()
    let cancelSawAbort = false
    const Stream = buildTool({
      name: 'Stream',
      description: () => 's',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      interruptBehavior: () => 'cancel',
      async *call(_i, ctx) {
        yield 'line 1\n'
        started.open()
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()))
        cancelSawAbort = true
        return 'never used'
      },
    })
    const Save = buildTool({
      name: 'Save',
      description: () => 's',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      call: async () => {
        await release.opened
        return 'saved'
      },
    })
    const Later = buildTool({
      name: 'Later',
      description: () => 'l',
      inputSchema: z.object({}),
      call: async () => 'ran',
    })
    const controller = new AbortController()
    const turn = testKernel([Stream, Save, Later]).runTurn(
      assistant(['s', 'Stream', {}], ['w', 'Save', {}], ['l', 'Later', {}]),
      { signal: controller.signal },
    )
    await started.opened
    controller.abort()
    release.open()
    const { message } = await turn
    expect(cancelSawAbort).toBe(true)
    expect(message.content.map(content)).toEqual([
      'Stream was interrupted while running: the user interrupted the turn. It may have had partial effects; check before calling it again. Output before it stopped:\nline 1\n',
      'saved',
      'Later was cancelled before it ran: the user interrupted the turn. It had no effect; call it again if it is still needed.',
    ])
  })
})

describe('the log is the source of truth', () => {
  it('re-projects to the same message, byte for byte, through JSONL', async () => {
    const kernel = testKernel([Echo])
    const first = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }], ['b', 'Nope', {}]))
    const second = await kernel.runTurn(assistant(['c', 'Echo', { text: 'y' }]))
    const roundTrip = kernel.log.read().map((e) => JSON.parse(JSON.stringify(e)) as KernelEvent)
    expect(JSON.stringify(projectMessages(roundTrip))).toBe(JSON.stringify([first.message, second.message]))
  })
})
