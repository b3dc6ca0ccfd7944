/** The shared spawner on real processes: one kill policy for Bash and hooks. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { describeCleanup, spawnProcess, type SpawnRequest } from '../../src/adapters/spawn-process.js'
import { gone } from '../processes.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolkernel-spawn-'))
  dirs.push(dir)
  return dir
}

/** Runs a script and collects its stdout and stderr. */
async function run(script: string, extra: Partial<SpawnRequest> = {}) {
  let stdout = ''
  let stderr = ''
  const outcome = await spawnProcess({
    script,
    cwd: scratch(),
    env: { PATH: process.env.PATH ?? '' },
    timeoutMs: 5000,
    signal: new AbortController().signal,
    onStdout: (chunk) => (stdout += chunk.toString()),
    onStderr: (chunk) => (stderr += chunk.toString()),
    ...extra,
  }).done
  return { outcome, stdout, stderr }
}

describe('spawnProcess', () => {
  it('gives the script its stdin and keeps stdout and stderr apart', async () => {
    const { outcome, stdout, stderr } = await run('cat; echo err >&2; exit 3', { stdin: '{"a":1}' })
    expect([outcome.end, outcome.exitCode, stdout, stderr]).toEqual(['exited', 3, '{"a":1}', 'err\n'])
    expect(describeCleanup(outcome.cleanup)).toBeUndefined()
  })

  it("does not run the user's ~/.bashrc, even with a socket on stdin", async () => {
    const home = scratch()
    writeFileSync(join(home, '.bashrc'), 'echo from-bashrc')
    const { stdout } = await run('echo script', { stdin: '', env: { PATH: process.env.PATH ?? '', HOME: home } })
    expect(stdout).toBe('script\n')
  })

  it('SIGKILLs a group that ignores SIGTERM once the grace is over', async () => {
    const dir = scratch()
    const pidFile = join(dir, 'pid')
    const { outcome } = await run(`trap '' TERM; sleep 100 & echo $! > ${pidFile}; wait`, {
      timeoutMs: 100,
      killGraceMs: 100,
    })
    expect(outcome).toMatchObject({ end: 'timed-out', exitCode: null, exitSignal: 'SIGKILL' })
    expect(describeCleanup(outcome.cleanup)).toBe('its process group was killed')
    expect(await gone(Number(readFileSync(pidFile, 'utf8')))).toBe(true)
  })

  it('stop() ends it as a timeout does; an aborted signal ends it too', async () => {
    const stopped = spawnProcess({
      script: 'echo ready; sleep 100',
      cwd: scratch(),
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 5000,
      signal: new AbortController().signal,
      onStdout: () => stopped.stop(),
      onStderr: () => {},
    })
    expect((await stopped.done).end).toBe('stopped')
    const controller = new AbortController()
    const aborted = spawnProcess({
      script: 'echo ready; sleep 100',
      cwd: scratch(),
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 5000,
      signal: controller.signal,
      onStdout: () => controller.abort(),
      onStderr: () => {},
    })
    expect((await aborted.done).end).toBe('aborted')
  })

  it('says what it killed, in words', () => {
    const none = { groupKilled: false, leftInGroup: 0, escapedKilled: 0, abandoned: false }
    expect(describeCleanup({ ...none, groupKilled: true, escapedKilled: 2, abandoned: true })).toBe(
      'its process group was killed; 2 processes that had left the group (setsid) were found and killed too; a process that left the group (setsid) kept the output open and was not waited for',
    )
    expect(describeCleanup({ ...none, leftInGroup: 3, abandoned: true })).toBe(
      '3 processes it left running in the background were killed when it ended; a process that left its process group (setsid) kept the output open after the command ended; it was not waited for and may still be running',
    )
  })
})
