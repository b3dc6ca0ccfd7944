/**
 * AskUserQuestion (issue 31): the questions reach the user through the permission "ask" — the
 * app's canUseTool, or a parked call answered with kernel.answer, in this kernel or another over
 * the same JSONL log — and the call returns the answers. No rule, mode or grant answers for a
 * person; without answers the model is told so. Bad question sets are refused by name.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { toolsForReplay } from '../../../src/cli/stand-ins.js'
import {
  AskUserQuestion,
  createJsonlLog,
  createKernel,
  replay,
  type AskUserQuestionInput,
  type KernelEvent,
  type PermissionRequest,
} from '../../../src/index.js'
import { assistant, fixedClock, testKernel } from '../../helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'tk-ask-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const input = {
  questions: [
    {
      question: 'Which schema library should the parser use?',
      header: 'Library',
      options: [
        { label: 'zod (Recommended)', description: 'Already a dependency' },
        { label: 'valibot', description: 'Smaller bundle' },
      ],
      multiSelect: false,
    },
    {
      question: 'Which formats must it read?',
      header: 'Formats',
      options: [
        { label: 'JSON', description: 'The wire format' },
        { label: 'YAML', description: 'Config files' },
        { label: 'TOML', description: 'Cargo-style config' },
      ],
      multiSelect: true,
    },
  ],
}
const answers = {
  'Which schema library should the parser use?': 'zod (Recommended)',
  'Which formats must it read?': 'JSON, YAML',
}
const answered = { ...input, answers } satisfies AskUserQuestionInput
const expected = [
  'The user answered your questions:',
  '- "Which schema library should the parser use?" → "zod (Recommended)"',
  '- "Which formats must it read?" → "JSON, YAML"',
  'Go on with these answers in mind.',
].join('\n')

const text = (result: { message: { content: ReadonlyArray<{ content?: unknown }> } }, i = 0) =>
  String(result.message.content[i]?.content)
const isError = (result: { message: { content: ReadonlyArray<{ is_error?: boolean }> } }, i = 0) =>
  result.message.content[i]?.is_error === true
const types = (events: readonly KernelEvent[]) => events.map((e) => e.type)

describe('AskUserQuestion through the app', () => {
  it('canUseTool sees the questions in request.input and answers with updatedInput', async () => {
    const asked: PermissionRequest[] = []
    const kernel = testKernel([AskUserQuestion], {
      canUseTool: (request) => {
        asked.push(request)
        return { behavior: 'allow', updatedInput: { ...(request.input as object), answers } }
      },
    })
    const result = await kernel.runTurn(assistant(['q', 'AskUserQuestion', input]))
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({ tool: 'AskUserQuestion', toolUseId: 'q', input })
    expect(asked[0]?.reason).toBe(
      'The model asks the user 2 questions:\n1. [Library] Which schema library should the parser use?\n2. [Formats] Which formats must it read?',
    )
    expect(isError(result)).toBe(false)
    expect(text(result)).toBe(expected)
    expect(result.events.find((e) => e.type === 'tool.permitted')).toMatchObject({
      behavior: 'allow',
      source: 'user',
      updatedInput: answered,
    })
  })

  it('a question left unanswered is marked; no answers at all is an error the model reads', async () => {
    let reply: object = {
      behavior: 'allow',
      updatedInput: { ...input, answers: { 'Which formats must it read?': 'TOML' } },
    }
    const kernel = testKernel([AskUserQuestion], { canUseTool: () => reply as never })
    const partial = await kernel.runTurn(assistant(['a', 'AskUserQuestion', input]))
    expect(text(partial)).toMatch(
      /"Which schema library should the parser use\?" → \(no answer\)\n- "Which formats must it read\?" → "TOML"/,
    )
    reply = { behavior: 'allow' }
    const none = await kernel.runTurn(assistant(['b', 'AskUserQuestion', input]))
    expect(isError(none)).toBe(true)
    expect(text(none)).toMatch(
      /the user gave no answers: the call was allowed without answers in its input .* Do not assume any answer/,
    )
  })

  it('a refused answer gives the model the user’s message', async () => {
    const kernel = testKernel([AskUserQuestion], {
      canUseTool: () => ({ behavior: 'deny', message: 'no questions now, just pick zod' }),
    })
    const result = await kernel.runTurn(assistant(['a', 'AskUserQuestion', input]))
    expect(isError(result)).toBe(true)
    expect(text(result)).toMatch(/Permission to use AskUserQuestion was denied: no questions now, just pick zod/)
  })

  it('answers for a question that was not asked are refused by name', async () => {
    const kernel = testKernel([AskUserQuestion], {
      canUseTool: () => ({ behavior: 'allow', updatedInput: { ...input, answers: { 'Which colour?': 'red' } } }),
    })
    const result = await kernel.runTurn(assistant(['a', 'AskUserQuestion', input]))
    expect(isError(result)).toBe(true)
    expect(text(result)).toMatch(/`answers.Which colour\?`: an answer to a question that was not asked/)
  })
})

describe('AskUserQuestion parked for a person', () => {
  it('with no canUseTool the call parks with the questions; kernel.answer continues it', async () => {
    const kernel = testKernel([AskUserQuestion])
    const first = await kernel.runTurn(assistant(['q', 'AskUserQuestion', input]))
    expect(types(first.events)).toContain('turn.parked')
    const [pending] = kernel.pendingApprovals()
    expect(pending).toMatchObject({ toolUseId: 'q', tool: 'AskUserQuestion', input, source: 'tool' })
    const done = await kernel.answer('q', { behavior: 'allow', digest: pending?.digest ?? '', updatedInput: answered })
    expect(done.pending).toEqual([])
    expect(text(done)).toBe(expected)
  })

  it('canUseTool may defer; the answer comes later', async () => {
    const kernel = testKernel([AskUserQuestion], { canUseTool: () => ({ behavior: 'defer' }) })
    const first = await kernel.runTurn(assistant(['q', 'AskUserQuestion', input]))
    expect(first.pending.map((p) => p.toolUseId)).toEqual(['q'])
    const done = await kernel.answer('q', { behavior: 'allow', updatedInput: answered })
    expect(text(done)).toBe(expected)
  })

  it('a second kernel over the same JSONL log lists the question and answers it; replay decides the same', async () => {
    const path = join(dir, 'ask.jsonl')
    const first = createKernel({ tools: [AskUserQuestion], cwd: dir, log: createJsonlLog(path, fixedClock()) })
    const parked = await first.runTurn(assistant(['q', 'AskUserQuestion', input]))
    expect(parked.pending.map((p) => p.toolUseId)).toEqual(['q'])
    first.log.close()

    const second = createKernel({ tools: [AskUserQuestion], cwd: dir, log: createJsonlLog(path, fixedClock()) })
    const [pending] = second.pendingApprovals()
    expect(pending?.input).toEqual(input)
    const done = await second.answer('q', { behavior: 'allow', digest: pending?.digest ?? '', updatedInput: answered })
    expect(text(done)).toBe(expected)
    const events = second.log.read()
    second.log.close()
    const replayed = await replay(events, { tools: [AskUserQuestion] })
    expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
  })

  it('a refused answer through kernel.answer', async () => {
    const kernel = testKernel([AskUserQuestion])
    await kernel.runTurn(assistant(['q', 'AskUserQuestion', input]))
    const done = await kernel.answer('q', { behavior: 'deny', message: 'I will decide later' })
    expect(text(done)).toMatch(/was denied: I will decide later/)
  })
})

describe('no rule, mode or grant answers for a person', () => {
  const asking = () => {
    const asked: string[] = []
    const canUseTool = (request: PermissionRequest) => {
      asked.push(request.toolUseId)
      return {
        behavior: 'allow' as const,
        updatedInput: { ...(request.input as object), answers },
        grant: { scope: 'tool' as const },
      }
    }
    return { asked, canUseTool }
  }

  it('bypassPermissions mode still asks', async () => {
    const { asked, canUseTool } = asking()
    const kernel = testKernel([AskUserQuestion], { permissions: { mode: 'bypassPermissions' }, canUseTool })
    expect(text(await kernel.runTurn(assistant(['a', 'AskUserQuestion', input])))).toBe(expected)
    expect(asked).toEqual(['a'])
    // and parks when nobody can answer now
    const away = testKernel([AskUserQuestion], { permissions: { mode: 'bypassPermissions' } })
    expect((await away.runTurn(assistant(['b', 'AskUserQuestion', input]))).pending).toHaveLength(1)
  })

  it.each(['default', 'bypassPermissions'] as const)(
    'a log of it (%s mode) replays without the tool: the stand-in asks too',
    async (mode) => {
      const { canUseTool } = asking()
      const kernel = testKernel([AskUserQuestion], { permissions: { mode }, canUseTool })
      await kernel.runTurn(assistant(['a', 'AskUserQuestion', input]))
      const parked = testKernel([AskUserQuestion], { permissions: { mode } })
      await parked.runTurn(assistant(['b', 'AskUserQuestion', input]))
      await parked.answer('b', { behavior: 'allow', updatedInput: answered })
      for (const events of [kernel.log.read(), parked.log.read()]) {
        const { tools, standIns } = toolsForReplay(events, undefined, [])
        expect(standIns).toEqual(['AskUserQuestion'])
        const replayed = await replay(events, { tools })
        expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
      }
    },
  )

  it('an allow rule and a session grant still ask', async () => {
    const { asked, canUseTool } = asking()
    const kernel = testKernel([AskUserQuestion], { permissions: { allow: ['AskUserQuestion'] }, canUseTool })
    await kernel.runTurn(assistant(['a', 'AskUserQuestion', input]))
    await kernel.runTurn(assistant(['b', 'AskUserQuestion', input]))
    expect(asked).toEqual(['a', 'b'])
  })

  it('a deny rule denies, and dontAsk mode turns the ask into a denial', async () => {
    const denied = testKernel([AskUserQuestion], {
      permissions: { deny: ['AskUserQuestion'] },
      canUseTool: () => ({ behavior: 'allow' }),
    })
    expect(text(await denied.runTurn(assistant(['a', 'AskUserQuestion', input])))).toMatch(
      /the rule AskUserQuestion denies it/,
    )
    const dontAsk = testKernel([AskUserQuestion], { permissions: { mode: 'dontAsk' } })
    expect(text(await dontAsk.runTurn(assistant(['b', 'AskUserQuestion', input])))).toMatch(
      /dontAsk mode turns every "ask" into a denial/,
    )
  })

  it('answers the model wrote itself are refused before anyone is asked', async () => {
    const { asked, canUseTool } = asking()
    const kernel = testKernel([AskUserQuestion], { canUseTool })
    const result = await kernel.runTurn(assistant(['a', 'AskUserQuestion', answered]))
    expect(asked).toEqual([])
    expect(text(result)).toMatch(/AskUserQuestion rejected its input: answers is filled in by the app/)
  })
})

describe('bad question sets are refused by name', () => {
  const refused = async (bad: unknown) => {
    const asked: string[] = []
    const kernel = testKernel([AskUserQuestion], {
      canUseTool: (r) => (asked.push(r.toolUseId), { behavior: 'allow' }),
    })
    const result = await kernel.runTurn(assistant(['a', 'AskUserQuestion', bad]))
    expect(asked).toEqual([])
    expect(isError(result)).toBe(true)
    return text(result)
  }
  const q = input.questions[0] as (typeof input.questions)[0]

  it('no questions, five questions', async () => {
    expect(await refused({ questions: [] })).toMatch(/`questions`: too small: expected array to have >=1 items/i)
    const five = [1, 2, 3, 4, 5].map((n) => ({ ...q, question: `Question ${n}?` }))
    expect(await refused({ questions: five })).toMatch(/`questions`: too big: expected array to have <=4 items/i)
  })

  it('the same question twice, the same label twice', async () => {
    expect(await refused({ questions: [q, q] })).toMatch(
      /`questions.1.question`: the same question as questions\[0\]: each question is asked once/,
    )
    const twins = { ...q, options: [q.options[0], q.options[0]] }
    expect(await refused({ questions: [twins] })).toMatch(
      /`questions.0.options.1.label`: the same label as options\[0\] \("zod \(Recommended\)"\): the labels of a question differ/,
    )
  })

  it('one option, five options, a header past 12 characters, a missing description', async () => {
    expect(await refused({ questions: [{ ...q, options: [q.options[0]] }] })).toMatch(
      /`questions.0.options`: too small/i,
    )
    const five = [1, 2, 3, 4, 5].map((n) => ({ label: `L${n}`, description: '' }))
    expect(await refused({ questions: [{ ...q, options: five }] })).toMatch(/`questions.0.options`: too big/i)
    expect(await refused({ questions: [{ ...q, header: 'Schema library' }] })).toMatch(/`questions.0.header`: too big/i)
    expect(
      await refused({ questions: [{ ...q, options: [{ label: 'a' }, { label: 'b', description: '' }] }] }),
    ).toMatch(/missing required field `questions.0.options.0.description`/)
  })
})
