/**
 * Background shells with real processes: Bash run_in_background, BashOutput, KillShell, and
 * kernel.close() / dispose(). What is left running is checked through /proc: no process whose
 * command line carries the test's marker.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import {
  builtinTools,
  checkLogOrder,
  createJsonlEventStore,
  createKernel,
  readJsonlFile,
  projectTimeline,
  recover,
  replay,
  type KernelEvent,
  type ToolResultBlock,
} from '../../../src/index.js'
import { projectTelemetry } from '../../../src/otel/index.js'
import { projectStats } from '../../../src/projections/stats.projection.js'
import { projectTimelineModel } from '../../../src/projections/timeline-model.projection.js'
import { assistant, testKernel } from '../../helpers.js'
import { project, text } from './setup.js'

/** Pids of live (non-zombie) processes whose command line contains `marker`. */
function withMarker(marker: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (cmdline.includes(marker) && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') found.push(Number(entry))
    } catch {
      // Gone while we looked.
    }
  }
  return found
}

/** Polls (no fixed sleep) until `check` answers something other than undefined. */
async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const value = await check()
    if (value !== undefined) return value
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`gave up waiting for ${what}`)
}

const run = promisify(execFile)

const markers: string[] = []
const newMarker = (): string => {
  const marker = `tkbg${randomUUID().replace(/-/g, '').slice(0, 12)}`
  markers.push(marker)
  return marker
}
afterEach(() => {
  // A failed test must not leave its processes behind for the next one.
  for (const marker of markers.splice(0)) for (const pid of withMarker(marker)) process.kill(pid, 'SIGKILL')
})

const shellIdOf = (block: ToolResultBlock): string => {
  const match = /as shell (\S+?)[ .]/.exec(text(block))
  if (match?.[1] === undefined) throw new Error(`no shell id in ${text(block)}`)
  return match[1]
}

const shellEvents = (events: readonly KernelEvent[]) => events.filter((e) => e.type.startsWith('shell.'))

/** A small HTTP server that prints a line when it listens and one per request. */
const server = (marker: string) =>
  `node -e 'const s=require("http").createServer((q,r)=>{console.log("GET "+q.url);r.end("ok")});s.listen(0,"127.0.0.1",()=>console.log("listening on "+s.address().port))' ${marker}`

/** A process that runs until killed, with the marker in its own command line (bash may exec it). */
const idle = (marker: string) => `node -e 'setInterval(() => {}, 1000)' ${marker}`

function get(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (res) => {
      let body = ''
      res.on('data', (d: Buffer) => (body += d.toString()))
      res.on('end', () => resolve(body))
    })
      .on('error', reject)
      .end()
  })
}

describe('background shells', () => {
  it('starts a dev server, reads only new output on the second read, and kills it', async () => {
    const marker = newMarker()
    const { call, kernel } = project()
    const started = await call('Bash', { command: server(marker), run_in_background: true })
    expect(started.is_error).toBeUndefined()
    expect(text(started)).toMatch(
      /^Started in the background as shell \S+ \(pid \d+\)\. Read its new output with BashOutput/,
    )
    const id = shellIdOf(started)
    expect(withMarker(marker).length).toBeGreaterThan(0)

    const first = await until(async () => {
      const out = text(await call('BashOutput', { shell_id: id }))
      return /listening on \d+/.test(out) ? out : undefined
    }, 'the server to listen')
    expect(first).toMatch(/\[shell \S+ is still running\]$/)
    const port = Number(/listening on (\d+)/.exec(first)?.[1])
    expect(await get(port, '/hello')).toBe('ok')

    const second = await until(async () => {
      const out = text(await call('BashOutput', { shell_id: id }))
      return out.includes('GET /hello') ? out : undefined
    }, 'the request line')
    expect(second).not.toContain('listening on')

    const killed = await call('KillShell', { shell_id: id })
    expect(killed.is_error).toBeUndefined()
    expect(text(killed)).toMatch(new RegExp(`^Shell ${id} was stopped \\(killed by SIGTERM\\)`))
    expect(withMarker(marker)).toEqual([])
    const after = text(await call('BashOutput', { shell_id: id }))
    expect(after).toContain(`[shell ${id} has exited: killed by SIGTERM]`)
    expect(text(await call('KillShell', { shell_id: id }))).toContain('had already exited')

    const events = shellEvents(kernel.log.read())
    expect(events[0]).toMatchObject({ type: 'shell.started', shellId: id, startedBy: 'call_1' })
    expect(events.filter((e) => e.type === 'shell.read').length).toBeGreaterThanOrEqual(3)
    expect(events.find((e) => e.type === 'shell.exited')).toMatchObject({
      shellId: id,
      how: 'killed',
      signal: 'SIGTERM',
      exitCode: null,
    })
    // Every shell event carries the turn that started the shell.
    const startTurn = events[0]?.turnId
    expect(events.every((e) => e.turnId === startTurn)).toBe(true)
    expect(checkLogOrder(kernel.log.read())).toEqual({ ok: true })
    await kernel.close()
  })

  it('stops every background shell at close(), with its exit in the log', async () => {
    const marker = newMarker()
    const { call, kernel } = project()
    const ids = [
      shellIdOf(
        await call('Bash', { command: `while :; do echo tick; sleep 0.05; done # ${marker}`, run_in_background: true }),
      ),
      shellIdOf(await call('Bash', { command: `${idle(marker)} & wait`, run_in_background: true })),
    ]
    // The loop's bash and the idle node process.
    await until(() => (withMarker(marker).length >= 3 ? true : undefined), 'both shells to run')
    await kernel.close()
    expect(withMarker(marker)).toEqual([])
    const exits = kernel.log.read().filter((e) => e.type === 'shell.exited')
    expect(exits.map((e) => [e.shellId, e.how])).toEqual(expect.arrayContaining(ids.map((id) => [id, 'closed'])))
    expect(checkLogOrder(kernel.log.read())).toEqual({ ok: true })
    // A closed kernel starts no more.
    const late = await kernel.runTurn(assistant(['late', 'Bash', { command: 'sleep 1', run_in_background: true }]))
    expect(text(late.message.content[0] as ToolResultBlock)).toContain('the session is closing')
  })

  it('dispose() and Symbol.asyncDispose stop them too', async () => {
    const marker = newMarker()
    const { call, kernel } = project()
    shellIdOf(await call('Bash', { command: idle(marker), run_in_background: true }))
    await until(() => (withMarker(marker).length > 0 ? true : undefined), 'the shell to run')
    await kernel.dispose()
    expect(withMarker(marker)).toEqual([])

    const other = project()
    shellIdOf(await other.call('Bash', { command: idle(marker), run_in_background: true }))
    await until(() => (withMarker(marker).length > 0 ? true : undefined), 'the shell to run')
    const dispose = (other.kernel as unknown as Record<symbol, () => Promise<void>>)[Symbol.asyncDispose]
    expect(dispose).toBeTypeOf('function')
    await dispose?.call(other.kernel)
    expect(withMarker(marker)).toEqual([])
  })

  it('a session in a JSONL store: close() stops the shells, and their exits are in the stored stream', async () => {
    const marker = newMarker()
    const { root } = project()
    const store = createJsonlEventStore(join(root, 'sessions'))
    const kernel = createKernel({
      tools: builtinTools,
      cwd: root,
      store,
      session: 's1',
      permissions: { mode: 'bypassPermissions' },
    })
    await kernel.ready()
    const { message } = await kernel.runTurn(
      assistant(['bg', 'Bash', { command: idle(marker), run_in_background: true }]),
    )
    const id = shellIdOf(message.content[0] as ToolResultBlock)
    await until(() => (withMarker(marker).length > 0 ? true : undefined), 'the shell to run')
    await kernel.close()
    expect(withMarker(marker)).toEqual([])
    const stored = readJsonlFile(join(root, 'sessions', 's1.jsonl')).events
    expect(stored.find((e) => e.type === 'shell.exited')).toMatchObject({ shellId: id, how: 'closed' })
    expect(checkLogOrder(stored)).toEqual({ ok: true })
  })

  it('an app that exits without close() leaves no shell behind (the exit handler; runs the built package)', async () => {
    const marker = newMarker()
    const fixture = new URL('../../fixtures/background/exit-without-close.mjs', import.meta.url).pathname
    const { stdout } = await run(process.execPath, [fixture, marker])
    expect(stdout).toContain('Started in the background as shell')
    expect(withMarker(marker)).toEqual([])
  })

  it('reports the exit code of a command that ends by itself', async () => {
    const { call, kernel } = project()
    const id = shellIdOf(await call('Bash', { command: 'echo done; exit 3', run_in_background: true }))
    const out = await until(async () => {
      const block = text(await call('BashOutput', { shell_id: id }))
      return block.includes('has exited') ? block : undefined
    }, 'the shell to exit')
    expect(kernel.log.read().find((e) => e.type === 'shell.exited')).toMatchObject({ how: 'exited', exitCode: 3 })
    // Its output may have come with an earlier read; the exit is said once it is known.
    expect(out).toMatch(/\[shell \S+ has exited: exit code 3\]$/)
    const reads = kernel.log.read().filter((e) => e.type === 'shell.read')
    expect(reads.at(-1)).toMatchObject({ running: false })
  })

  it('keeps unread output bounded and says how much was dropped', async () => {
    const { call, kernel } = project()
    // 2 MB of numbered lines: far more than is kept.
    const id = shellIdOf(await call('Bash', { command: 'seq 1 300000', run_in_background: true }))
    await until(
      () => (kernel.log.read().some((e) => e.type === 'shell.exited') ? true : undefined),
      'the command to finish',
    )
    const out = text(await call('BashOutput', { shell_id: id }))
    expect(out.length).toBeLessThan(30_000)
    expect(out.startsWith('1\n2\n3\n')).toBe(true)
    expect(out).toContain('characters of output were dropped')
    expect(out).toMatch(/\n300000\n\n\[shell \S+ has exited: exit code 0\]$/)
    const read = kernel.log.read().find((e) => e.type === 'shell.read')
    expect(read).toMatchObject({ running: false })
    expect((read as { droppedChars?: number }).droppedChars).toBeGreaterThan(1_000_000)
    // Read again: nothing new.
    expect(text(await call('BashOutput', { shell_id: id }))).toMatch(/^\(no new output\)/)
  })

  it('filters lines with a safe regular expression and refuses one that could backtrack', async () => {
    const { call, kernel } = project()
    const id = shellIdOf(await call('Bash', { command: 'printf "a 1\\nb 2\\na 3\\n"', run_in_background: true }))
    await until(() => (kernel.log.read().some((e) => e.type === 'shell.exited') ? true : undefined), 'the exit')
    const bad = await call('BashOutput', { shell_id: id, filter: '(a+)+$' })
    expect(bad.is_error).toBe(true)
    expect(text(bad)).toContain('puts a quantifier on a group')
    const out = text(await call('BashOutput', { shell_id: id, filter: '^a \\d' }))
    expect(out).toBe(
      `a 1\na 3\n\n[shell ${id} has exited: exit code 0]\n[1 lines did not match the filter and were discarded]`,
    )
  })

  it('answers an id this kernel did not start with a clear error', async () => {
    const { call } = project()
    const read = await call('BashOutput', { shell_id: 'shell_nope' })
    expect(read.is_error).toBe(true)
    expect(text(read)).toContain(
      'no background shell shell_nope in this session (no background shell was started in this session)',
    )
    const kill = await call('KillShell', { shell_id: 'shell_nope' })
    expect(kill.is_error).toBe(true)
    expect(text(kill)).toContain('no background shell shell_nope')
  })

  it('a background command goes through the same permission rules as any Bash command', async () => {
    const marker = newMarker()
    const kernel = testKernel(builtinTools, { permissions: { deny: ['Bash(sleep:*)'] }, approvals: 'deny' })
    const { message, events } = await kernel.runTurn(
      assistant(
        ['d', 'Bash', { command: `sleep 600 # ${marker}`, run_in_background: true }],
        // Not read-only and no canUseTool: asked, so denied.
        ['a', 'Bash', { command: `touch x # ${marker}`, run_in_background: true }],
      ),
    )
    expect(message.content.map((b) => b.is_error)).toEqual([true, true])
    expect(events.some((e) => e.type.startsWith('shell.'))).toBe(false)
    expect(withMarker(marker)).toEqual([])
    await kernel.close()
  })

  it('a log with background shells replays (reading the recorded outputs) and recovers to nothing', async () => {
    const { call, kernel, root } = project()
    const id = shellIdOf(await call('Bash', { command: 'echo hi; exit 2', run_in_background: true }))
    await until(async () => {
      const out = text(await call('BashOutput', { shell_id: id }))
      return out.includes('has exited') ? out : undefined
    }, 'the exit')
    const running = shellIdOf(await call('Bash', { command: 'sleep 600', run_in_background: true }))
    await call('KillShell', { shell_id: running })
    await kernel.close()
    const log = kernel.log.read()
    // The exit of the first shell came after the turn that started it had completed.
    expect(checkLogOrder(log)).toEqual({ ok: true })
    expect(recover(log)).toEqual([])
    const result = await replay(log, { tools: builtinTools, cwd: root })
    expect(result.ok).toBe(true)
    // Replay ran no shell.
    expect(result.log.some((e) => e.type.startsWith('shell.'))).toBe(false)
    // The projections read them: the timeline says what each was; telemetry and stats count calls only.
    const details = projectTimeline(log)
      .filter((row) => row.type.startsWith('shell.'))
      .map((row) => row.detail)
    expect(details).toContainEqual(expect.stringMatching(/^background shell \S+ exited \(exit code 2\)$/))
    expect(details).toContainEqual(expect.stringMatching(/^background shell \S+ killed by call_\d+ \(SIGTERM\)$/))
    expect(projectTimelineModel(log).calls.length).toBe(projectStats(log).calls)
    expect(projectTelemetry(log).spans.filter((span) => span.kind !== 'turn').length).toBe(projectStats(log).calls)
  })
})
