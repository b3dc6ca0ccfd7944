/**
 * toolkernel/testing against real mistakes in user code: each layer below has one, and
 * checkToolLayer must name it; the same layer without the mistake must pass.
 */
import fc from 'fast-check'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Bash, buildTool, type HooksConfig, type Tool } from '../../src/index.js'
import { checkToolLayer, type ToolLayerConfig, type ToolLayerReport } from '../../src/testing/index.js'

const Echo = buildTool({
  name: 'Echo',
  description: () => 'Echoes its text.',
  inputSchema: z.object({ text: z.string() }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async ({ text }) => `echo:${text}`,
})

/** A key-value tool over its own state: unsafe (it writes), so it runs alone. */
function storeTool(shared: boolean): Tool {
  const state = new Map<string, number>()
  return buildTool({
    name: 'Count',
    description: () => 'Counts calls per key.',
    inputSchema: z.object({ key: z.enum(['a', 'b']) }),
    // The mistake when `shared`: it claims to be safe to run beside others, but it reads,
    // yields and writes shared state, so two calls beside each other lose an update.
    isConcurrencySafe: () => shared,
    call: async ({ key }) => {
      const seen = state.get(key) ?? 0
      await new Promise((resolve) => setImmediate(resolve))
      state.set(key, seen + 1)
      return `${key}=${seen + 1}`
    },
  })
}

const failed = (report: ToolLayerReport): string => (report.ok ? 'passed' : report.violation)

describe('checkToolLayer', () => {
  it('a sound layer passes: random turns, faults, aborts, three wire formats', async () => {
    const report = await checkToolLayer(() => ({ tools: [Echo, storeTool(false)], maxConcurrency: 3 }), {
      numRuns: 25,
      seed: 1,
    })
    expect(report).toEqual({ ok: true, runs: 25 })
  })

  it("finds a tool that declares interruptBehavior 'cancel' but ignores its signal", async () => {
    const Sleepy = buildTool({
      name: 'Sleepy',
      description: () => 'Waits a while.',
      inputSchema: z.object({}),
      interruptBehavior: () => 'cancel',
      call: () => new Promise<string>((resolve) => setTimeout(() => resolve('done'), 400).unref()),
    })
    const report = await checkToolLayer(() => ({ tools: [Sleepy] }), {
      numRuns: 20,
      maxCalls: 2,
      faults: false,
      hostile: false,
      settleMs: 100,
      seed: 4,
      onFailure: 'return',
    })
    expect(failed(report)).toMatch(
      /Sleepy .* declares interruptBehavior 'cancel' but was still running .* ignores ctx\.signal/,
    )
  })

  it('finds a tool that claims to be concurrency-safe but shares state', async () => {
    const options = {
      numRuns: 30,
      faults: false,
      aborts: false,
      hostile: false,
      truncated: false,
      invalidShare: 0,
      modes: ['batch'] as const,
      seed: 3,
      onFailure: 'return' as const,
    }
    const report = await checkToolLayer(() => ({ tools: [storeTool(true)] }), options)
    expect(failed(report)).toMatch(
      /Count \(toolu_\d\) claims to be concurrency-safe, but running beside it changes what Count/,
    )
    // The same tool, honest about it, passes the same runs.
    expect(await checkToolLayer(() => ({ tools: [storeTool(false)] }), options)).toMatchObject({ ok: true })
  })

  it('a race between a writer and a reader blames the writer, shrunk to the two calls with no fault', async () => {
    // The mistake is Write's: it claims to be safe beside others but changes what they read.
    // Read is honest (it only reads); it is the call whose answer changes, not the one to blame.
    const world = (): ToolLayerConfig => {
      const state = new Map<string, string>()
      const Write = buildTool({
        name: 'Write',
        description: () => 'Sets a key.',
        inputSchema: z.object({ key: z.enum(['a', 'b']), value: z.string() }),
        isConcurrencySafe: () => true,
        call: async ({ key, value }) => {
          await new Promise((resolve) => setImmediate(resolve))
          state.set(key, value)
          return `set ${key}`
        },
      })
      const Read = buildTool({
        name: 'Read',
        description: () => 'Reads a key.',
        inputSchema: z.object({ key: z.enum(['a', 'b']) }),
        isConcurrencySafe: () => true,
        isReadOnly: () => true,
        call: async ({ key }) => `${key}=${state.get(key) ?? 'unset'}`,
      })
      return { tools: [Echo, Write, Read], maxConcurrency: 4 }
    }
    // Defaults otherwise (faults, hostile calls and ids, cut-off messages, three formats) but no
    // aborts: with them this world also finds a replay divergence after an abort meets a huge
    // output (seed 32; test/replay/interrupted-save.replay.test.ts), not this test's subject.
    const report = await checkToolLayer(world, { numRuns: 100, aborts: false, seed: 1, onFailure: 'return' })
    if (report.ok) throw new Error('expected the race to be found')
    expect(report.violation).toMatch(/^Write \(\S+\) claims to be concurrency-safe, but .*Read \(\S+\)/)
    expect(report.violation).not.toMatch(/^Read/)
    // The counterexample is the race and nothing else: the writer, then the reader, no fault.
    const calls = (JSON.parse(report.counterexample) as { content: Array<{ type: string; name?: string }> }).content
      .filter((block) => block.type === 'tool_use')
      .map((block) => block.name)
    expect(calls).toEqual(['Write', 'Read'])
    expect(report.report).toMatch(/faults \S+: none, \S+: none; abort at call none\)/)
  })

  it('finds a PreToolUse hook that hangs past its timeout, ignoring its signal', async () => {
    const hooks = (listens: boolean): HooksConfig => ({
      PreToolUse: [
        {
          hooks: [
            {
              type: 'function',
              name: 'audit',
              timeout: 0.02,
              fn: (_input, { signal }) =>
                new Promise((resolve) => {
                  if (listens) signal.addEventListener('abort', () => resolve(undefined), { once: true })
                }),
            },
          ],
        },
      ],
    })
    const options = { numRuns: 5, maxCalls: 2, faults: false, aborts: false, settleMs: 100, seed: 4 }
    const report = await checkToolLayer(() => ({ tools: [Echo], hooks: hooks(false) }), {
      ...options,
      onFailure: 'return',
    })
    expect(failed(report)).toMatch(
      /the hook PreToolUse\[0\]\.hooks\[0\] \(audit\) was still running .* ignores options\.signal/,
    )
    expect(await checkToolLayer(() => ({ tools: [Echo], hooks: hooks(true) }), options)).toMatchObject({ ok: true })
  })

  it('names the call a hanging turn is stuck in, and its step', async () => {
    // The mistake: a 'block' tool that never settles and ignores its signal, so the turn never ends.
    const Stuck = buildTool({
      name: 'Stuck',
      description: () => 'Never returns.',
      inputSchema: z.object({ text: z.string() }),
      isReadOnly: () => true,
      call: () => new Promise<string>(() => {}),
    })
    const options = { numRuns: 20, maxCalls: 1, faults: false, aborts: false, turnTimeoutMs: 300, seed: 3 }
    const report = await checkToolLayer(() => ({ tools: [Stuck] }), { ...options, onFailure: 'return' })
    expect(failed(report)).toMatch(/the turn did not finish within 300 ms; still open: Stuck running/)
  })

  it('finds a rule set that lets a write through an allow rule meant for reads', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'tk-testing-'))
    const commands = fc.constantFrom(
      { command: 'git status' },
      { command: 'git log -1' },
      { command: 'git branch -D main' },
    )
    const options = {
      numRuns: 15,
      faults: false,
      aborts: false,
      hostile: false,
      truncated: false,
      invalidShare: 0,
      modes: ['batch'] as const,
      inputs: { Bash: commands },
      mustNotRun: ({ input }: { input: unknown }) =>
        /git branch -D/.test((input as { command: string }).command) ? 'deleting a branch needs a person' : undefined,
      seed: 5,
    }
    // Meant for `git status` and `git log`, but a prefix rule allows every git command.
    const loose = await checkToolLayer(() => ({ tools: [Bash], cwd, permissions: { allow: ['Bash(git:*)'] } }), {
      ...options,
      onFailure: 'return',
    })
    expect(failed(loose)).toMatch(
      /Bash ran with .*git branch -D main.*which must never run \(deleting a branch needs a person\)/,
    )
    const tight = { allow: ['Bash(git status)', 'Bash(git log:*)'] }
    expect(await checkToolLayer(() => ({ tools: [Bash], cwd, permissions: tight }), options)).toMatchObject({
      ok: true,
    })
  })

  it('a failure reports the shrunk turn as a runnable message, with the seed and path that reproduce it', async () => {
    const Broken = buildTool({
      name: 'Broken',
      description: () => 'Claims to be safe, is not.',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      interruptBehavior: () => 'cancel',
      call: () => new Promise<string>((resolve) => setTimeout(() => resolve('late'), 300).unref()),
    })
    const options = { numRuns: 20, maxCalls: 2, faults: false, hostile: false, settleMs: 50, seed: 4 }
    const report = await checkToolLayer(() => ({ tools: [Broken] }), { ...options, onFailure: 'return' })
    if (report.ok) throw new Error('expected a failure')
    expect(report.report).toContain('await kernel.runTurn({')
    expect(report.report).toContain(`seed: ${report.seed}`)
    expect(JSON.parse(report.counterexample)).toMatchObject({ role: 'assistant', content: expect.any(Array) })
    // Thrown by default, with the same report.
    await expect(checkToolLayer(() => ({ tools: [Broken] }), options)).rejects.toThrow(/ignores ctx\.signal/)
  })
})
