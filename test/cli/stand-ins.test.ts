/** A log replays standalone with exactly the tools its session had (session.configured). */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { toolsForReplay } from '../../src/cli/stand-ins.js'
import { buildTool, builtinTools, parseJsonl, replay } from '../../src/index.js'
import { TOOLKERNEL_VERSION } from '../../src/version.js'
import { assistant, memoryResults, testKernel } from '../helpers.js'
import { readFileSync } from 'node:fs'

/** An app's own tool that happens to be called Read. */
const AppRead = buildTool({
  name: 'Read',
  aliases: ['Fetch'],
  description: () => 'Reads a record by key.',
  inputSchema: z.object({ key: z.string() }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async ({ key }) => `record ${key}`,
})

describe('replaying a log with its own tools', () => {
  it('logs session.configured with the first turn: tools, fingerprints, rules, limits, version', async () => {
    const kernel = testKernel([AppRead], { permissions: { deny: ['Read'] } })
    await kernel.runTurn(assistant(['a', 'Read', { key: 'k' }]))
    await kernel.runTurn(assistant(['b', 'Read', { key: 'k' }]))
    const configured = kernel.log.read().filter((e) => e.type === 'session.configured')
    expect(configured).toHaveLength(1)
    const [event] = configured
    if (event?.type !== 'session.configured') throw new Error('no session.configured')
    expect(event.toolkernel).toBe(TOOLKERNEL_VERSION)
    expect(event.rules.deny).toEqual(['Read'])
    expect(event.tools.map((t) => [t.name, t.aliases])).toEqual([['Read', ['Fetch']]])
    expect(event.tools[0]?.schema).toMatch(/^[0-9a-f]{16}$/)
    expect(kernel.log.read()[event.seq - 1]?.type).toBe('turn.started')
  })

  it('an app tool named like a built-in replays with a stand-in, not the built-in; no built-in is offered', async () => {
    const kernel = testKernel([AppRead])
    await kernel.runTurn(
      assistant(['a', 'Read', { key: 'k' }], ['b', 'Fetch', { key: 'j' }], ['c', 'Grep', { pattern: 'x' }]),
    )
    const events = kernel.log.read()
    const { tools, standIns } = toolsForReplay(events, undefined, builtinTools)
    expect(tools.map((t) => t.name)).toEqual(['Read'])
    expect(standIns).toEqual(['Read'])
    const result = await replay(events, { tools })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
  })

  it('a built-in the log recorded with the same schema is the built-in itself', async () => {
    const kernel = testKernel(builtinTools)
    await kernel.runTurn(assistant(['a', 'Glob', { pattern: '*.none' }]))
    const { tools, standIns } = toolsForReplay(kernel.log.read(), undefined, builtinTools)
    expect(standIns).toEqual([])
    expect(tools).toEqual([...builtinTools])
  })

  it("a stand-in keeps the tool's own result limit: output it sent to the result store goes there again", async () => {
    const tool = (maxResultSizeChars: number) =>
      buildTool({
        name: 'Dump',
        description: () => 'Dumps.',
        inputSchema: z.object({}),
        maxResultSizeChars,
        call: async () => 'x'.repeat(300),
      })
    const { results, readResult } = memoryResults()
    for (const limit of [100, Infinity]) {
      const kernel = testKernel([tool(limit)], { results })
      await kernel.runTurn(assistant(['a', 'Dump', {}]))
      const events = kernel.log.read()
      expect(events.some((e) => e.type === 'tool.budgeted')).toBe(limit === 100)
      const { tools } = toolsForReplay(events, undefined, builtinTools)
      expect(tools[0]?.maxResultSizeChars).toBe(limit)
      const result = await replay(events, { tools, readResult })
      expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
    }
  })

  it('a tool with its own result mapper (every MCP tool) replays: the stand-in answers with the recorded block', async () => {
    const Shout = buildTool({
      name: 'mcp__srv__shout',
      description: () => 'Shouts.',
      inputSchema: z.object({ text: z.string() }),
      isConcurrencySafe: () => true,
      call: async ({ text }) => ({ content: [{ type: 'text', text }] }),
      mapToolResultToToolResultBlockParam: (output, toolUseId) => ({
        type: 'tool_result',
        tool_use_id: toolUseId,
        content: output.content.map((part) => part.text.toUpperCase()).join(' '),
      }),
    })
    const kernel = testKernel([Shout])
    await kernel.runTurn(assistant(['a', Shout.name, { text: 'hi' }], ['b', Shout.name, { text: 'there' }]))
    await kernel.runTurn(assistant(['a', Shout.name, { text: 'again' }]))
    const events = kernel.log.read()
    const { tools, standIns } = toolsForReplay(events, undefined, builtinTools)
    expect(standIns).toEqual([Shout.name])
    const result = await replay(events, { tools })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
  })

  it('an input the log shows refused is refused again; its text, which only the schema could write, is left to the log', async () => {
    const AddNote = buildTool({
      name: 'AddNote',
      description: () => 'Adds a note.',
      inputSchema: z.object({ text: z.string().min(1) }),
      isConcurrencySafe: () => true,
      validateInput: ({ text }) => (text === 'secret' ? { result: false, message: 'no secrets' } : { result: true }),
      call: async ({ text }) => `added ${text}`,
    })
    const kernel = testKernel([AddNote], {
      permissions: { ask: ['AddNote'] },
      // The user rewrites one call's input into one the schema refuses.
      canUseTool: async ({ toolUseId }) =>
        toolUseId === 'd' ? { behavior: 'allow', updatedInput: { text: 3 } } : { behavior: 'allow' },
    })
    await kernel.runTurn(
      assistant(['a', 'AddNote', { text: 7 }], ['b', 'AddNote', { text: 'secret' }], ['c', 'AddNote', { text: 'ok' }]),
    )
    await kernel.runTurn(assistant(['d', 'AddNote', { text: 'rewritten' }], ['e', 'AddNote', { text: 7 }]))
    const events = kernel.log.read()
    const { tools, standIns } = toolsForReplay(events, undefined, builtinTools)
    expect(standIns).toEqual(['AddNote'])

    const result = await replay(events, { tools, inputNotChecked: standIns })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
    expect(result.notChecked?.map((item) => [item.toolUseId, item.tool, item.step])).toEqual([
      ['a', 'AddNote', 'validate'],
      ['d', 'AddNote', 'permission'],
      ['e', 'AddNote', 'validate'],
    ])
    const rejected = events.find((e) => e.type === 'tool.rejected' && e.toolUseId === 'a')
    expect(result.notChecked?.[0]).toMatchObject({
      position: rejected?.seq,
      message: (rejected as { message: string }).message,
    })
    // The validator's verdict ('b') is replayed from the log, as it is for the real tool: not listed.

    // Without the option the texts are compared, and the stand-in's are not the schema's.
    const strict = await replay(events, { tools })
    expect(strict.ok ? 'ok' : strict.divergence.message).toMatch(
      /the log has tool\.rejected .*Invalid input for AddNote/,
    )
    expect(strict.notChecked).toBeUndefined()
    // With the real tool nothing is left to the log.
    const real = await replay(events, { tools: [AddNote], inputNotChecked: [] })
    expect(real.ok ? 'ok' : real.divergence.message).toBe('ok')
    expect(real.notChecked).toEqual([])
  })

  it("a hook's added context is not added twice: the stand-in gives back the mapper's block, without it", async () => {
    const Lookup = buildTool({
      name: 'Lookup',
      description: () => 'Looks a key up.',
      inputSchema: z.object({ key: z.string() }),
      isConcurrencySafe: () => true,
      call: async ({ key }) => `value of ${key}`,
    })
    const context = (text: string) => ({
      hooks: [
        { type: 'function' as const, name: text, fn: () => ({ hookSpecificOutput: { additionalContext: text } }) },
      ],
    })
    const kernel = testKernel([Lookup], {
      hooks: { PreToolUse: [context('before')], PostToolUse: [context('after')] },
    })
    await kernel.runTurn(assistant(['a', 'Lookup', { key: 'x' }]))
    const events = kernel.log.read()
    const { tools, standIns } = toolsForReplay(events, undefined, builtinTools)
    expect(standIns).toEqual(['Lookup'])
    const result = await replay(events, { tools })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
  })

  it('an older log (no session.configured) has a stand-in for a tool whose only call an abort cut off before its parse', async () => {
    const { events } = parseJsonl(readFileSync(new URL('../fixtures/logs/abort.jsonl', import.meta.url), 'utf8'))
    expect(events.some((e) => e.type === 'session.configured')).toBe(false)
    const { tools, standIns } = toolsForReplay(events, undefined, builtinTools)
    expect(standIns).toEqual(['Slow', 'Writer'])
    const result = await replay(events, { tools })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
  })

  it("the version constant is package.json's", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
    expect(TOOLKERNEL_VERSION).toBe(pkg.version)
  })
})
