/**
 * The same kit against four planted mistakes: each run must fail, with the shrunk turn printed as
 * a runnable kernel.runTurn({...}) and the seed that reproduces it.
 */
import fc from 'fast-check'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { z } from 'zod'
import { Bash, buildTool } from 'toolkernel'
import { checkToolLayer, type ToolLayerReport } from 'toolkernel/testing'
import { notesTools } from '../src/notes.js'

function expectCaught(report: ToolLayerReport, violation: RegExp): void {
  if (report.ok) throw new Error('the planted mistake was not found')
  expect(report.violation).toMatch(violation)
  expect(report.report).toContain('await kernel.runTurn({')
  expect(report.report).toContain(`seed: ${report.seed}`)
}

it("a 'cancel' tool that ignores its signal", async () => {
  const Slow = buildTool({
    name: 'Slow',
    description: () => 'Waits, ignoring its signal.',
    inputSchema: z.object({}),
    interruptBehavior: () => 'cancel',
    call: () => new Promise<string>((resolve) => setTimeout(() => resolve('done'), 400).unref()),
  })
  const options = { numRuns: 20, maxCalls: 2, faults: false, hostile: false, settleMs: 100, seed: 4 }
  expectCaught(
    await checkToolLayer(() => ({ tools: [Slow] }), { ...options, onFailure: 'return' }),
    /ignores ctx\.signal/,
  )
})

it('a tool that claims to be concurrency-safe but shares state', async () => {
  const counter = () => {
    let n = 0
    return buildTool({
      name: 'Tick',
      description: () => 'Counts.',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      call: async () => {
        const seen = n
        await new Promise((resolve) => setImmediate(resolve))
        n = seen + 1
        return String(n)
      },
    })
  }
  const report = await checkToolLayer(() => ({ tools: [counter()] }), {
    numRuns: 30,
    faults: false,
    aborts: false,
    hostile: false,
    truncated: false,
    invalidShare: 0,
    modes: ['batch'],
    seed: 3,
    onFailure: 'return',
  })
  expectCaught(report, /claims to be concurrency-safe/)
})

it('a PreToolUse hook that hangs past its timeout', async () => {
  const hang = { type: 'function' as const, name: 'audit', timeout: 0.02, fn: () => new Promise<void>(() => {}) }
  const report = await checkToolLayer(() => ({ tools: notesTools(), hooks: { PreToolUse: [{ hooks: [hang] }] } }), {
    numRuns: 5,
    maxCalls: 2,
    faults: false,
    aborts: false,
    settleMs: 100,
    seed: 4,
    onFailure: 'return',
  })
  expectCaught(report, /the hook PreToolUse\[0\]\.hooks\[0\] \(audit\) was still running/)
})

it('an allow rule meant for reads that lets a write through', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'tk-example-'))
  const commands = fc.constantFrom({ command: 'git status' }, { command: 'git branch -D main' })
  const report = await checkToolLayer(() => ({ tools: [Bash], cwd, permissions: { allow: ['Bash(git:*)'] } }), {
    numRuns: 15,
    faults: false,
    aborts: false,
    hostile: false,
    truncated: false,
    invalidShare: 0,
    modes: ['batch'],
    inputs: { Bash: commands },
    mustNotRun: ({ input }) =>
      /git branch -D/.test((input as { command: string }).command) ? 'deleting a branch needs a person' : undefined,
    seed: 5,
    onFailure: 'return',
  })
  expectCaught(report, /must never run \(deleting a branch needs a person\)/)
})
