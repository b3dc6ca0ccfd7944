/** The runner's report of where a Bash command left its shell (docs/session-context.md §Bash), with real processes. */
import { mkdirSync, mkdtempSync, readdirSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createProcessRunner } from '../../src/adapters/process-runner.js'

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tk-cwd-report-')))
mkdirSync(join(dir, 'a', 'b'), { recursive: true })
const runner = createProcessRunner()
const run = (command: string, extra: { env?: Record<string, string> } = {}) =>
  runner.run(command, { cwd: dir, timeoutMs: 60_000, signal: new AbortController().signal, reportCwd: true, ...extra })

describe('reportCwd', () => {
  it('reports the directory after cd, leaving output and exit code as they were', async () => {
    const result = await run('cd a/b; echo "out"; echo "err" >&2; exit 4')
    expect(result).toMatchObject({ output: 'out\nerr\n', exitCode: 4, cwd: join(dir, 'a', 'b') })
  })

  it('keeps bash’s own line numbers in its messages', async () => {
    const command = 'true\nno-such-command-xyz'
    const plain = await runner.run(command, { cwd: dir, timeoutMs: 60_000, signal: new AbortController().signal })
    const result = await run(command)
    expect(plain.output).toMatch(/line \d+: no-such-command-xyz: command not found/)
    expect(result.output).toBe(plain.output)
    expect(result.cwd).toBe(dir)
  })

  it('reports nothing when the command replaces the EXIT trap, and leaves no file behind', async () => {
    const before = readdirSync(tmpdir()).filter((name) => name.startsWith('toolkernel-cwd-')).length
    const result = await run("trap 'echo bye' EXIT; cd a")
    expect(result).toMatchObject({ output: 'bye\n', exitCode: 0 })
    expect(result.cwd).toBeUndefined()
    const after = readdirSync(tmpdir()).filter((name) => name.startsWith('toolkernel-cwd-')).length
    expect(after).toBeLessThanOrEqual(before)
  })

  it('sets the environment entries it is given, on top of its own', async () => {
    const result = await run('echo "$ONE:${PATH:+path}"', { env: { ONE: '1' } })
    expect(result.output).toBe('1:path\n')
  })

  it('without reportCwd the command runs as written and nothing is reported', async () => {
    const result = await runner.run('cd a; pwd', { cwd: dir, timeoutMs: 60_000, signal: new AbortController().signal })
    expect(result).toMatchObject({ output: `${join(dir, 'a')}\n` })
    expect(result.cwd).toBeUndefined()
  })
})
