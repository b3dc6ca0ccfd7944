/**
 * The /proc helpers under the spawner, on real processes: probing a group that is gone (every
 * command that left nothing behind is probed once) and finding who holds a command's output.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import { descriptorTarget, processInfo, signalGroup } from '../../src/adapters/process-table.js'
import { spawnProcess } from '../../src/adapters/spawn-process.js'
import { gone } from '../processes.js'

/** A script that leaves a `setsid sleep` behind (holding what `redirect` leaves it) and prints its pid. */
const leaveEscaped = (redirect: string) =>
  `setsid sleep 100 ${redirect} & p=$!; until [ "$(cut -d' ' -f5 /proc/$p/stat)" = "$p" ]; do :; done; echo $p`

async function runScript(script: string, mergeStderr: boolean) {
  let stdout = ''
  const outcome = await spawnProcess({
    script,
    mergeStderr,
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '' },
    timeoutMs: 5000,
    signal: new AbortController().signal,
    onStdout: (chunk) => (stdout += chunk.toString()),
    onStderr: () => {},
    pipeGraceMs: 50,
  }).done
  return { outcome, pid: Number(stdout.trim().split('\n').pop()) }
}

describe('process table', () => {
  it('probes a group that is gone as false, and leaves the stack trace limit as it was', async () => {
    const child = spawn('true', { detached: true, stdio: 'ignore' })
    const pid = child.pid ?? 0
    await once(child, 'exit')
    const limit = Error.stackTraceLimit
    expect(signalGroup(pid, 0)).toBe(false)
    expect(signalGroup(pid, 'SIGKILL')).toBe(false)
    expect(Error.stackTraceLimit).toBe(limit)
    expect(new Error('still traced').stack).toMatch(/at /)
  })

  it('still probes when the stack trace limit cannot be set (frozen intrinsics)', async () => {
    const child = spawn('true', { detached: true, stdio: 'ignore' })
    const pid = child.pid ?? 0
    await once(child, 'exit')
    const limit = Error.stackTraceLimit
    Object.defineProperty(Error, 'stackTraceLimit', { value: limit, writable: false, configurable: true })
    try {
      expect(signalGroup(pid, 0)).toBe(false)
    } finally {
      Object.defineProperty(Error, 'stackTraceLimit', { value: limit, writable: true, configurable: true })
    }
  })

  it('probes and signals a live group', async () => {
    const child = spawn('sleep', ['100'], { detached: true, stdio: 'ignore' })
    const pid = child.pid ?? 0
    expect(signalGroup(pid, 0)).toBe(true)
    expect(processInfo(pid)?.pgid).toBe(pid)
    expect(signalGroup(pid, 'SIGKILL')).toBe(true)
    await once(child, 'exit')
    expect(processInfo(pid)).toBeUndefined()
    expect(descriptorTarget(pid, 1)).toBeUndefined()
  })

  it('with stderr merged, finds and kills a setsid process holding the output after the shell ended', async () => {
    const { outcome, pid } = await runScript(leaveEscaped(''), true)
    expect([outcome.end, outcome.exitCode, outcome.cleanup.escapedKilled, outcome.cleanup.abandoned]).toEqual([
      'exited',
      0,
      1,
      false,
    ])
    expect(await gone(pid)).toBe(true)
  }, 60_000)

  it('with stderr apart, finds and kills a setsid process holding only stderr', async () => {
    const { outcome, pid } = await runScript(leaveEscaped('> /dev/null'), false)
    expect([outcome.end, outcome.exitCode, outcome.cleanup.escapedKilled, outcome.cleanup.abandoned]).toEqual([
      'exited',
      0,
      1,
      false,
    ])
    expect(await gone(pid)).toBe(true)
  }, 60_000)
})
