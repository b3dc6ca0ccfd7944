/**
 * The permission-bypass suite (issue 11, "Tests"): every row of attacks.cases.ts goes through a real
 * kernel with a real shell in its own temp directory, with no `canUseTool` (so "ask" means "denied,
 * did not run"). A row passes when the result says the call was denied or needed approval (where the
 * row asks for that) and the attack's effect is absent: the file it would create, the file it would
 * delete or change, the text it would leak.
 *
 * The controls run each Bash attack with bash directly, without the kernel, and check that it does
 * have its effect here; a row whose control fails would pass for the wrong reason.
 */
import { afterAll, describe, it } from 'vitest'
import { ATTACKS, BENIGN, type AttackCase, type Family } from './attacks.cases.js'
import {
  contentOf,
  missingPrograms,
  makeSandbox,
  present,
  removeSandboxes,
  runBashDirectly,
  runThroughKernel,
  type CallSpec,
  type Sandbox,
} from './attacks.setup.js'

/** Every Bash call is bounded: an attack that hangs must not hang the suite. */
const BASH_TIMEOUT_MS = 5000
/** What a denial or an unanswerable "ask" says, in the kernel's words or close to them. */
const DENIAL = /\bdenied\b|\bneeds? approval\b|\bnot allowed\b|\basks? first\b/i

afterAll(removeSandboxes)

const isBash = (c: { tool?: string | undefined }) => c.tool === undefined || c.tool === 'Bash'
const callOf = (c: {
  tool?: string | undefined
  command: string
  input?: Record<string, unknown> | undefined
}): CallSpec =>
  isBash(c)
    ? { tool: 'Bash', input: { command: c.command, timeout: BASH_TIMEOUT_MS } }
    : { tool: c.tool as string, input: c.input ?? {} }
const show = (command: string) => JSON.stringify(command)
const rows = ATTACKS.map((c) => ({
  ...c,
  name: `${c.family} [${c.mode}] ${isBash(c) ? show(c.command) : `${c.tool}: ${c.command}`}`,
}))

const snapshot = (sandbox: Sandbox, c: AttackCase) =>
  new Map((c.keeps ?? []).map((p) => [p, contentOf(sandbox.path(p))]))

describe('the attack table', () => {
  it('holds at least 150 distinct attacks across the five families, each named once, 30+ ported with a source', ({
    expect,
  }) => {
    const distinct = new Set(ATTACKS.map((c) => `${c.family}\u0000${c.tool ?? 'Bash'}\u0000${c.command}`))
    expect(distinct.size).toBeGreaterThanOrEqual(150)
    const families: Family[] = ['read-only', 'deny-rule', 'allow-rule', 'paths', 'read-rules']
    for (const family of families)
      expect(
        ATTACKS.some((c) => c.family === family),
        family,
      ).toBe(true)
    const names = rows.map((r) => r.name)
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([])
    expect(new Set(ATTACKS.filter((c) => c.source !== undefined).map((c) => c.command)).size).toBeGreaterThanOrEqual(30)
    // Every row must be able to fail: it checks a verdict or an effect.
    expect(
      ATTACKS.filter(
        (c) =>
          c.verdict === 'any' &&
          c.creates === undefined &&
          (c.keeps ?? []).length === 0 &&
          (c.leaks ?? []).length === 0,
      ),
    ).toEqual([])
  })
})

describe.concurrent('attacks through the kernel are denied and leave no trace', () => {
  it.for(rows.map((row) => [row.name, row] as const))('%s', async ([, c], { expect, skip }) => {
    const missing = missingPrograms(c.setup)
    if (missing.length > 0) return skip(`needs ${missing.join(', ')}, which this machine lacks`)
    const sandbox = await makeSandbox(c.setup)
    const kept = snapshot(sandbox, c)
    for (const [path, content] of kept) expect(content, `fixture ${path}`).toBeDefined()
    const { block, text } = await runThroughKernel(sandbox, { mode: c.mode, ...c.rules }, callOf(c), c.before)
    const problems: string[] = []
    if (c.verdict === 'denied' && (block.is_error !== true || !DENIAL.test(text)))
      problems.push(`not denied; the result was: ${text.slice(0, 400)}`)
    if (c.creates !== undefined && present(sandbox.path(c.creates))) problems.push(`${c.creates} was created`)
    for (const [path, content] of kept)
      if (contentOf(sandbox.path(path)) !== content) problems.push(`${path} was changed or removed`)
    // The model's own input echoed back ("No matches for /TOKEN/") reveals nothing it did not send.
    const echoed = Object.values(sandbox.fill(callOf(c).input) as Record<string, unknown>).filter(
      (v): v is string => typeof v === 'string',
    )
    const shown = echoed.reduce((t, e) => t.split(e).join('«input»'), text)
    for (const leak of c.leaks ?? [])
      if (shown.includes(leak)) problems.push(`the result shows ${leak}: ${text.slice(0, 300)}`)
    expect(problems.join('\n')).toBe('')
  })
})

/** One control per distinct Bash attack whose effect can be observed here. */
const controls = [
  ...new Map(
    ATTACKS.filter((c) => isBash(c) && c.live !== false && (c.creates !== undefined || (c.keeps ?? []).length > 0)).map(
      (c) => [`${c.family} ${show(c.command)}`, { ...c, name: `${c.family} ${show(c.command)}` }],
    ),
  ).values(),
]

describe.concurrent('controls: each Bash attack has its effect when bash runs it without the kernel', () => {
  it.for(controls.map((row) => [row.name, row] as const))('%s', async ([, c], { expect, skip }) => {
    const missing = missingPrograms(c.setup, c.command)
    if (missing.length > 0) return skip(`needs ${missing.join(', ')}, which this machine lacks`)
    const sandbox = await makeSandbox(c.setup)
    const kept = snapshot(sandbox, c)
    const result = await runBashDirectly(c.command, sandbox.dir)
    const created = c.creates !== undefined && present(sandbox.path(c.creates))
    const changed = [...kept].some(([path, content]) => contentOf(sandbox.path(path)) !== content)
    expect(created || changed, `no effect; bash said: ${result.output.slice(0, 400)}`).toBe(true)
  })
})

const benign = BENIGN.map((b) => ({
  ...b,
  name: `[${b.mode}${b.rules.allow || b.rules.deny ? ' with rules' : ''}] ${isBash(b) ? show(b.command) : b.command}`,
}))

describe.concurrent('benign calls still run unasked (a layer that denies everything fails these)', () => {
  it.for(benign.map((row) => [row.name, row] as const))('%s', async ([, b], { expect, skip }) => {
    const missing = missingPrograms(b.setup, isBash(b) ? b.command : undefined)
    if (missing.length > 0) return skip(`needs ${missing.join(', ')}, which this machine lacks`)
    const sandbox = await makeSandbox(b.setup)
    const { block, text } = await runThroughKernel(sandbox, { mode: b.mode, ...b.rules }, callOf(b))
    expect(block.is_error, text).not.toBe(true)
    expect(text).toContain(b.shows)
    if (b.creates !== undefined) expect(present(sandbox.path(b.creates))).toBe(true)
  })
})
