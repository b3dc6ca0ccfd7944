/**
 * Subagents under random child turns: calls that run, fail, are denied by the parent's rule or
 * park for a person; answers that allow or deny; an abort of the parent's turn at a random point.
 * Whatever happens: every tool_use of every turn gets exactly one result, nothing denied or
 * unanswered runs, the session's messages hold only the parent's turn, nothing is left open for
 * recovery, and the log replays.
 */
import fc from 'fast-check'
import { expectSnapshotResumeEqual, withSnapshotAt } from '../events/snapshot-resume.js'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  createAgentTool,
  createKernel,
  projectMessages,
  recover,
  replay,
  type AgentModel,
  type Tool,
} from '../../src/index.js'

type Kind = 'ok' | 'fail' | 'denied' | 'ask'

function tools(ran: string[]): Tool[] {
  const schema = z.object({ n: z.number() })
  const run =
    (name: string) =>
    async ({ n }: { n: number }) => {
      ran.push(`${name}${n}`)
      if (name === 'Fail') throw new Error(`failed ${n}`)
      return `${name} ${n}`
    }
  return [
    buildTool({ name: 'Ok', description: () => 'ok', inputSchema: schema, call: run('Ok') }),
    buildTool({ name: 'Fail', description: () => 'fails', inputSchema: schema, call: run('Fail') }),
    buildTool({ name: 'Denied', description: () => 'denied by rule', inputSchema: schema, call: run('Denied') }),
    buildTool({
      name: 'Ask',
      description: () => 'asks',
      inputSchema: schema,
      call: run('Ask'),
      checkPermissions: () => ({ behavior: 'ask', message: 'needs a person' }),
    }),
  ]
}

const NAMES: Record<Kind, string> = { ok: 'Ok', fail: 'Fail', denied: 'Denied', ask: 'Ask' }

/** A model port that makes the scripted turns of calls, then reports. */
function scripted(turns: Kind[][]): AgentModel {
  let step = 0
  let n = 0
  return async () => {
    const kinds = turns[step++]
    if (kinds === undefined) return { content: [{ type: 'text', text: 'report' }], stop_reason: 'end_turn' }
    const content = kinds.map((kind) => ({ type: 'tool_use', id: `c${++n}`, name: NAMES[kind], input: { n } }))
    return { content, stop_reason: 'tool_use' }
  }
}

const scenario = fc.record({
  turns: fc.array(fc.array(fc.constantFrom<Kind>('ok', 'fail', 'denied', 'ask'), { minLength: 1, maxLength: 3 }), {
    minLength: 1,
    maxLength: 3,
  }),
  answers: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
  /** Abort the parent's turn after this many answers (never: -1). */
  abortAfter: fc.integer({ min: -1, max: 3 }),
  /** Where a session snapshot is taken (issue 33). */
  snapshotAt: fc.nat(),
})

describe('subagents, property', () => {
  it('pairing, approval and abort hold at every depth', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ turns, answers, abortAfter, snapshotAt }) => {
        const ran: string[] = []
        const kernel = createKernel({
          tools: [...tools(ran), createAgentTool({ model: scripted(turns) })],
          permissions: { deny: ['Denied'] },
        })
        const controller = new AbortController()
        let result = await kernel.runTurn(
          {
            role: 'assistant',
            stop_reason: 'tool_use',
            content: [{ type: 'tool_use', id: 'a1', name: 'Agent', input: { description: 'd', prompt: 'p' } }],
          },
          { signal: controller.signal },
        )
        const allowed = new Set<string>()
        let given = 0
        while (result.pending.length > 0) {
          if (given === abortAfter) {
            // A parked turn's result has settled; the abort's outcome is read from the log below.
            controller.abort('stop')
            break
          }
          const call = result.pending[0]
          if (call === undefined) break
          const allow = answers[given++ % answers.length] === true
          if (allow) allowed.add(`Ask${(call.input as { n: number }).n}`)
          result = await kernel.answer(
            call.toolUseId,
            allow ? { behavior: 'allow' } : { behavior: 'deny', message: 'no' },
          )
        }
        await settled(kernel.log)
        const log = kernel.log.read()
        // Every tool_use of every turn has exactly one result.
        for (const request of log.filter((e) => e.type === 'tool.requested')) {
          const results = log.filter(
            (e) => e.type === 'tool.result' && e.turnId === request.turnId && e.toolUseId === request.toolUseId,
          )
          expect(results).toHaveLength(1)
        }
        // Nothing denied, nothing unanswered or refused ran.
        expect(ran.filter((r) => r.startsWith('Denied'))).toEqual([])
        for (const r of ran.filter((x) => x.startsWith('Ask'))) expect(allowed.has(r)).toBe(true)
        // The session's messages: the parent's turn only, one result for the Agent call.
        const messages = projectMessages(log)
        expect(messages).toHaveLength(1)
        expect(messages[0]?.content.map((b) => b.tool_use_id)).toEqual(['a1'])
        expect(kernel.pendingApprovals()).toEqual([])
        expect(recover(log)).toEqual([])
        const replayed = await replay(log, { tools: kernel.tools })
        expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
        // Issue 33: a snapshot anywhere (child turns open or over) resumes as the whole log does.
        const snapshotted = withSnapshotAt(log, 1 + (snapshotAt % log.length))
        const options = { tools: kernel.tools, permissions: { deny: ['Denied'] } }
        expect(await expectSnapshotResumeEqual(snapshotted, options)).toBe(true)
      }),
      { numRuns: 40 },
    )
  })
})

/** Waits until every turn in the log has completed (a child's events may land just after its parent's). */
async function settled(log: ReturnType<typeof createKernel>['log']): Promise<void> {
  const open = () => {
    const started = new Set(
      log
        .read()
        .filter((e) => e.type === 'turn.started')
        .map((e) => e.turnId),
    )
    for (const e of log.read()) if (e.type === 'turn.completed') started.delete(e.turnId)
    return started.size
  }
  if (open() === 0) return
  await new Promise<void>((resolve) => {
    const sub = log.events$.subscribe(() => {
      if (open() > 0) return
      sub.unsubscribe()
      resolve()
    })
  })
}
