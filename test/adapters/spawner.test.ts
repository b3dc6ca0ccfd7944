/**
 * The spawner's helper process (docs/decisions/processes.md, 164), on real processes: it dies
 * mid-command (that command fails saying so, its processes are killed, the next command works),
 * runners and kernels share one (decision 172) that ends with the last of them and with the app
 * (no orphan), an end asked for before it answers is kept, and a command ends the same whichever
 * process forks it.
 */
import { execFile, spawn } from 'node:child_process'
import { promisify } from 'node:util'
import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import { createProcessRunner } from '../../src/adapters/process-runner.js'
import { allProcesses, descendantsOf } from '../../src/adapters/process-table.js'
import { FRAME, frame, SPAWNER_MARK, SPAWNER_SOURCE } from '../../src/adapters/spawner-helper.js'
import { Bash, createKernel } from '../../src/index.js'
import type { ProcessRunOptions } from '../../src/ports/index.js'
import { gone, pollUntil } from '../processes.js'

const cwd = tmpdir()
const options = (signal = new AbortController().signal): ProcessRunOptions => ({ cwd, timeoutMs: 60_000, signal })

const cmdline = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')
  } catch {
    return ''
  }
}
/** The pid of the process under `root` running exactly `line` (e.g. `sleep 31.5`), or undefined. */
const runningUnder = (root: number, line: string): number | undefined =>
  descendantsOf(root).find((info) => cmdline(info.pid).trim() === line)?.pid
/**
 * The process running exactly `line` under one of this process's spawner helpers, and that helper
 * (runners share one helper per process, decision 172: an earlier test's may be the one).
 */
const runningInHelper = (line: string): { helper: number; command: number } | undefined => {
  for (const info of allProcesses())
    if (info.ppid === process.pid && cmdline(info.pid).includes(SPAWNER_MARK)) {
      const command = runningUnder(info.pid, line)
      if (command !== undefined) return { helper: info.pid, command }
    }
  return undefined
}

describe('the spawner helper', () => {
  it('killed mid-command: that command fails with a clear error and its processes die; the next command works', async () => {
    const runner = createProcessRunner()
    const running = runner.run('echo started; sleep 31.5', options())
    let found: { helper: number; command: number } | undefined
    expect(await pollUntil(() => (found = runningInHelper('sleep 31.5')) !== undefined)).toBe(true)
    const { helper, command: sleeper } = found as { helper: number; command: number }
    process.kill(helper, 'SIGKILL')
    const result = await running
    expect(result.failure).toMatch(/^the spawner process \(pid \d+\) was killed by SIGKILL while the command ran/)
    expect(result.cleanup).toMatch(/process group was killed/)
    expect(await gone(sleeper)).toBe(true)
    const next = await runner.run('echo next', options())
    expect(next).toMatchObject({ output: 'next\n', exitCode: 0 })
    expect(next.failure).toBeUndefined()
    await runner.close?.()
  })

  it('through the kernel, the Bash call is an error naming the spawner', async () => {
    const kernel = createKernel({ tools: [Bash], cwd, permissions: { mode: 'bypassPermissions' } })
    const turn = kernel.runTurn({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'sleep 32.5' } }],
      stop_reason: 'tool_use',
    })
    let found: { helper: number } | undefined
    expect(await pollUntil(() => (found = runningInHelper('sleep 32.5')) !== undefined)).toBe(true)
    process.kill((found as { helper: number }).helper, 'SIGKILL')
    const block = (await turn).message.content[0]
    expect(block).toMatchObject({ is_error: true })
    expect(JSON.stringify(block)).toMatch(/the spawner process \(pid \d+\) was killed by SIGKILL while the command ran/)
    await kernel.close()
  })

  it('two runners share one helper, and a command from each runs in it', async () => {
    const [a, b] = [createProcessRunner(), createProcessRunner()]
    const [pa, pb] = await Promise.all([a.run('echo $PPID', options()), b.run('echo $PPID', options())])
    expect(pa.output).toBe(pb.output)
    expect(cmdline(Number(pa.output))).toContain(SPAWNER_MARK)
    await a.close?.()
    await b.close?.()
  })

  it('kernels share it; kernel.close() gives its share back and the last one ends it (runs the built package)', async () => {
    const fixture = new URL('../fixtures/spawner/shared.mjs', import.meta.url).pathname
    const { stdout } = await promisify(execFile)(process.execPath, [fixture])
    const steps = JSON.parse(stdout) as Record<'bothRan' | 'firstClosed' | 'thirdRan' | 'allClosed', string[]>
    expect(steps.bothRan).toHaveLength(1)
    expect(steps.firstClosed).toEqual(steps.bothRan)
    expect(steps.thirdRan).toEqual(steps.bothRan)
    expect(steps.allClosed).toEqual([])
  })

  it('ends with the app: when the process that started it is killed, it kills its command and exits (no orphan)', async () => {
    // An app that starts the helper as createSpawner does and asks it for `sleep 33.5`, then is SIGKILLed.
    const request = {
      file: 'bash',
      args: ['-c', 'read -r -u 3 _; exec 3<&-; sleep 33.5'],
      cwd,
      env: { PATH: process.env.PATH ?? '' },
      stdin: null,
      fds: [1],
    }
    const app = `
      const { spawn } = require('node:child_process')
      const helper = spawn(process.execPath, ['-e', process.env.SOURCE, ${JSON.stringify(SPAWNER_MARK)}], { stdio: ['pipe', 'pipe', 'ignore'], env: {} })
      helper.stdout.once('data', () => console.log(helper.pid))
      helper.stdin.write(Buffer.from(process.env.FRAME, 'hex'))
    `
    const parent = spawn(process.execPath, ['-e', app], {
      env: {
        ...process.env,
        SOURCE: SPAWNER_SOURCE,
        FRAME: frame(FRAME.SPAWN, 1, JSON.stringify(request)).toString('hex'),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const helper = Number(
      await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(String(d)))),
    )
    let sleeper: number | undefined
    expect(await pollUntil(() => (sleeper = runningUnder(helper, 'sleep 33.5')) !== undefined)).toBe(true)
    parent.kill('SIGKILL')
    expect(await gone(helper)).toBe(true)
    expect(await gone(sleeper as number)).toBe(true)
  })

  it('an app that neither closes the kernel nor exits ends on its own, and its helper with it (runs the built package)', async () => {
    const fixture = new URL('../fixtures/spawner/ends-on-its-own.mjs', import.meta.url).pathname
    // Resolves only once the app has ended by itself: an idle helper that kept it alive would hang here.
    const { stdout } = await promisify(execFile)(process.execPath, [fixture])
    const { result, helpers } = JSON.parse(stdout) as { result: unknown; helpers: string[] }
    expect(JSON.stringify(result)).toContain('ran')
    expect(helpers).toHaveLength(1)
    expect(await gone(Number(helpers[0]))).toBe(true)
  })

  it('an app awaiting kernel.close() with an idle helper sees it settle (runs the built package)', async () => {
    const fixture = new URL('../fixtures/spawner/awaits-close.mjs', import.meta.url).pathname
    const { stdout } = await promisify(execFile)(process.execPath, [fixture])
    expect(stdout).toBe('closed\n')
  })

  it('an abort before the helper has said the pid is kept, and ends the command when it does', async () => {
    const runner = createProcessRunner()
    const controller = new AbortController()
    const running = runner.run('sleep 34.5', options(controller.signal))
    controller.abort()
    const result = await running
    expect(result).toMatchObject({ aborted: true })
    expect(result.cleanup).toMatch(/process group was killed/)
    await runner.close?.()
  })

  it('a command ends the same whichever process forks it: output order, exit codes, signals', async () => {
    const helper = createProcessRunner({ spawner: 'helper' })
    const inline = createProcessRunner({ spawner: 'inline' })
    const scripts = [
      'echo a; echo b >&2; printf c; exit 7',
      'kill -TERM $$',
      'kill -KILL $$',
      'echo bad >&2; false',
      'sleep 0.2 & echo left',
      'head -c 200000 /dev/zero | tr "\\0" x',
    ]
    for (const script of scripts) {
      const [a, b] = await Promise.all([helper.run(script, options()), inline.run(script, options())])
      expect(a, script).toEqual(b)
    }
    await helper.close?.()
  })

  it('refuses an unknown spawner', () => {
    expect(() => createProcessRunner({ spawner: 'fork' as 'helper' })).toThrow(
      /createProcessRunner: spawner must be 'helper' or 'inline', got "fork"/,
    )
  })
})
