/**
 * Golden logs: one per scenario, committed under test/fixtures/logs. Each must keep reading,
 * re-projecting to its committed messages byte for byte, and re-executing without divergence.
 * `UPDATE_GOLDEN=1 npx vitest run test/replay/golden.test.ts` records them again — only with an
 * event-version bump and an upgrade path when an old log would stop replaying.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  createMemoryLog,
  parseJsonl,
  projectMessages,
  recover,
  replay,
  toJsonLine,
  type KernelEvent,
  type KernelOptions,
} from '../../src/index.js'
import { assistant, counterIds, fixedClock, testKernel } from '../helpers.js'
import { goldenTools } from './golden-tools.js'

const DIR = new URL('../fixtures/logs/', import.meta.url).pathname
const RESULTS = 'test/fixtures/logs/results'
const update = process.env.UPDATE_GOLDEN === '1'
let recording = false

type Scenario = {
  name: string
  options?: Partial<KernelOptions>
  run: (kernel: ReturnType<typeof testKernel>, abort: AbortController) => Promise<unknown>
}

const scenarios: Scenario[] = [
  {
    name: 'parallel-batch',
    run: (k) =>
      k.runTurn(
        assistant(
          ['t1', 'Lookup', { key: 'a' }],
          ['t2', 'Lookup', { key: 'b' }],
          ['t3', 'Writer', { note: 'hi' }],
          ['t4', 'Lookup', { key: 'c' }],
          ['t5', 'Lookup', { wrong: 1 }],
          ['t6', 'Nope', {}],
          ['t7', 'Broken', {}],
        ),
      ),
  },
  {
    name: 'abort',
    run: (k, abort) => {
      const turn = k.runTurn(
        assistant(['s1', 'Slow', { steps: 2 }], ['s2', 'Slow', { steps: 1 }], ['w1', 'Writer', { note: 'later' }]),
        { signal: abort.signal },
      )
      setImmediate(() => abort.abort('the user pressed Esc'))
      return turn
    },
  },
  {
    name: 'hook-block',
    options: {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Writer',
            hooks: [
              {
                type: 'function',
                name: 'no-writes',
                fn: () => ({
                  hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'writes are frozen' },
                }),
              },
            ],
          },
          {
            matcher: 'Lookup',
            hooks: [
              {
                type: 'function',
                name: 'context',
                fn: () => ({ hookSpecificOutput: { additionalContext: 'keys are case-sensitive' } }),
              },
            ],
          },
        ],
        PostToolUse: [{ hooks: [{ type: 'function', name: 'audit', fn: () => undefined }] }],
      },
    },
    run: (k) => k.runTurn(assistant(['h1', 'Lookup', { key: 'x' }], ['h2', 'Writer', { note: 'no' }])),
  },
  {
    name: 'denial',
    options: {
      permissions: { deny: ['Broken'], ask: ['Writer'] },
      canUseTool: (request) =>
        request.toolUseId === 'd2'
          ? { behavior: 'allow', grant: { scope: 'tool' } }
          : { behavior: 'deny', message: 'not now' },
    },
    run: async (k) => {
      await k.runTurn(assistant(['d1', 'Broken', {}], ['d2', 'Writer', { note: 'first' }]))
      return k.runTurn(assistant(['d3', 'Writer', { note: 'second' }]))
    },
  },
  {
    name: 'persisted-output',
    options: {
      results: {
        save: async ({ toolUseId: id }: { toolUseId: string }, content: string) => {
          const path = join(RESULTS, `${id}.txt`)
          if (recording) {
            mkdirSync(RESULTS, { recursive: true })
            writeFileSync(path, content)
          }
          return path
        },
      },
    },
    run: (k) => k.runTurn(assistant(['p1', 'Big', { lines: 500 }], ['p2', 'Lookup', { key: 'small' }])),
  },
]

async function record(scenario: Scenario): Promise<KernelEvent[]> {
  const clock = fixedClock()
  const log = createMemoryLog(clock)
  const kernel = testKernel(goldenTools, { log, ...scenario.options, ports: { clock, ids: counterIds() } })
  await scenario.run(kernel, new AbortController())
  return [...log.read()]
}

/** A process that died mid-call: the log as it stood while a call was running. */
async function recordCrash(): Promise<KernelEvent[]> {
  const clock = fixedClock()
  const log = createMemoryLog(clock)
  const kernel = testKernel(goldenTools, { log, ports: { clock, ids: counterIds() } })
  void kernel.runTurn(
    assistant(
      ['c1', 'Lookup', { key: 'done before the crash' }],
      ['c2', 'Slow', { steps: 2 }],
      ['c3', 'Writer', { note: 'never ran' }],
    ),
  )
  await new Promise((resolve) => setImmediate(resolve))
  return [...log.read()]
}

function load(name: string): KernelEvent[] {
  const parsed = parseJsonl(readFileSync(join(DIR, `${name}.jsonl`), 'utf8'))
  expect(parsed.corrupt).toEqual([])
  return parsed.events
}

describe('golden logs', () => {
  for (const scenario of [...scenarios, { name: 'crash-mid-call' } as Scenario]) {
    it(`${scenario.name}: reads, re-projects byte for byte, and re-executes without divergence`, async () => {
      const logPath = join(DIR, `${scenario.name}.jsonl`)
      if (update || !existsSync(logPath)) {
        mkdirSync(DIR, { recursive: true })
        recording = true
        const events = scenario.name === 'crash-mid-call' ? await recordCrash() : await record(scenario)
        recording = false
        writeFileSync(logPath, events.map(toJsonLine).join(''))
        writeFileSync(
          join(DIR, `${scenario.name}.messages.json`),
          JSON.stringify(projectMessages(events), null, 2) + '\n',
        )
      }
      const events = load(scenario.name)
      expect(JSON.stringify(projectMessages(events), null, 2) + '\n').toBe(
        readFileSync(join(DIR, `${scenario.name}.messages.json`), 'utf8'),
      )
      const whole = scenario.name === 'crash-mid-call' ? closeLog(events) : events
      const result = await replay(whole, {
        tools: goldenTools,
        // This scenario's own store names files by id, in the fixtures.
        readResult: (path) => (path.startsWith(RESULTS) ? readFileSync(path, 'utf8') : undefined),
        ...(scenario.options?.permissions !== undefined ? { permissions: scenario.options.permissions } : {}),
      })
      expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
    })
  }

  it('crash-mid-call: recovery answers every open call, deterministically', () => {
    const events = load('crash-mid-call')
    const appended = recover(events)
    expect(recover(events)).toEqual(appended)
    const closed = closeLog(events)
    const requested = closed.filter((e) => e.type === 'tool.requested').map((e) => e.toolUseId)
    const answered = closed.filter((e) => e.type === 'tool.result').map((e) => e.toolUseId)
    expect(answered.sort()).toEqual(requested.sort())
    expect(recover(closed)).toEqual([])
    const [message] = projectMessages(closed)
    expect(message?.content.map((b) => String(b.content))).toEqual([
      'value of done before the crash',
      expect.stringMatching(
        /^Slow was interrupted while running: the session stopped unexpectedly .* Output before it stopped:\nstep 1\nstep 2\n$/s,
      ),
      expect.stringMatching(/^Writer was cancelled before it ran: the session stopped unexpectedly/),
    ])
  })

  it('a divergence names the first event where the engine now decides differently', async () => {
    const events = load('denial')
    const result = await replay(events, { tools: goldenTools, permissions: { deny: ['Broken', 'Writer'] } })
    expect(result.ok).toBe(false)
    if (!result.ok) {
      const decided = events.find((e) => e.type === 'tool.permitted' && e.toolUseId === 'd2')
      expect(result.divergence.position).toBeLessThanOrEqual(decided?.seq ?? -1)
      expect(result.divergence.expected).toMatchObject({ toolUseId: 'd2' })
      expect(result.divergence.message).toMatch(
        /^at event \d+: the log has \S+ \{.*\}, but the engine now decides \S+ \{.*"toolUseId":"d2"/,
      )
    }
  })

  it('a log from a newer toolkernel is refused line by line with a clear message', () => {
    const line = JSON.stringify({
      v: 3,
      seq: 0,
      at: 1,
      type: 'turn.started',
      turnId: 't',
      mode: 'batch',
      maxConcurrency: 1,
    })
    expect(parseJsonl(`${line}\n`).corrupt).toEqual([
      { line: 1, message: 'written by a newer toolkernel (event version 3; this one reads up to 2)' },
    ])
  })
})

function closeLog(events: KernelEvent[]): KernelEvent[] {
  const log = createMemoryLog(fixedClock(), events)
  for (const event of recover(events)) log.append(event)
  return [...log.read()]
}
