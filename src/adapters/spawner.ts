/**
 * The app's end of the spawner (docs/decisions/processes.md, 164): one long-lived helper process
 * (spawner-helper.ts) starts the commands, so the app's process, large and busy, never forks per
 * command. Everything else stays here: the timers, the signals to the process group and to
 * escaped processes, the /proc walks, the output caps (spawn-process.ts runs the kill policy as for
 * a local spawn; it only asks the helper to start the shell and hears its output and exit).
 *
 * - Started on the first command; started again on the next command after it died.
 * - If it dies while commands run, each of them fails with an error that says so, and their
 *   process groups (and what left them) are killed from here.
 * - It does not keep the app alive: its handles are unreferenced while no command runs.
 * - It ends when `close()` ends its stdin, or when the app exits or dies (its stdin ends then
 *   too); it kills what it still runs first.
 * - Runners share one helper per process (`sharedSpawner`, decision 172): a server of many
 *   sessions runs one helper, not one per kernel.
 */
import type { ChildProcess } from 'node:child_process'
import type { Readable, Writable } from 'node:stream'
import { FRAME, FrameReader, frame, SPAWNER_MARK, SPAWNER_SOURCE } from './spawner-helper.js'
import { builtin } from '../util/builtin.js'

/** What the helper is asked to start. */
export interface RemoteSpawn {
  readonly file: string
  readonly args: readonly string[]
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  /** Written to stdin, then closed; undefined: no stdin. */
  readonly stdin: string | undefined
  /** The output descriptors whose targets are noted while the prelude holds the shell. */
  readonly fds: readonly number[]
}

/** What the run hears back. */
export interface RemoteEvents {
  spawned(pid: number, stat: string, targets: readonly (string | null)[]): void
  failed(message: string): void
  stdout(chunk: Buffer): void
  stderr(chunk: Buffer): void
  streamClosed(): void
  exited(code: number | null, signal: NodeJS.Signals | null): void
  /** The helper died before the run ended. */
  lost(message: string): void
}

/** A run's handle: flow control, and forgetting it. */
export interface RemoteRun {
  pause(): void
  resume(): void
  /** Stop reading its output (destroyed in the helper); no more events come. */
  abandon(): void
  /** The run is over here: no more events come. */
  release(): void
}

export interface Spawner {
  launch(request: RemoteSpawn, events: RemoteEvents): RemoteRun
  /** Ends the helper (it kills what it still runs); the next launch starts a new one. */
  close(): Promise<void>
}

interface Helper {
  readonly child: ChildProcess
  readonly input: Writable
  readonly output: Readable
  readonly exited: Promise<void>
  dead: boolean
}

/** A spawner: one helper process, started on first use. */
export function createSpawner(): Spawner {
  let helper: Helper | undefined
  let nextId = 1
  const runs = new Map<number, RemoteEvents>()

  const hold = (h: Helper, busy: boolean): void => {
    // Referenced only while a command runs: an idle helper never keeps the app alive.
    for (const handle of [h.child, h.input, h.output] as { ref(): void; unref(): void }[])
      if (busy) handle.ref()
      else handle.unref()
  }

  const dispatch = (type: number, id: number, payload: Buffer): void => {
    const events = runs.get(id)
    if (events === undefined) return
    switch (type) {
      case FRAME.SPAWNED: {
        const { pid, stat, targets } = JSON.parse(payload.toString()) as {
          pid: number
          stat: string
          targets: (string | null)[]
        }
        events.spawned(pid, stat, targets)
        return
      }
      case FRAME.FAILED:
        forget(id)
        events.failed(payload.toString())
        return
      case FRAME.STDOUT:
        events.stdout(payload)
        return
      case FRAME.STDERR:
        events.stderr(payload)
        return
      case FRAME.STDOUT_CLOSED:
      case FRAME.STDERR_CLOSED:
        events.streamClosed()
        return
      case FRAME.EXIT: {
        const [code, signal] = JSON.parse(payload.toString()) as [number | null, NodeJS.Signals | null]
        events.exited(code, signal)
        return
      }
    }
  }

  const forget = (id: number): void => {
    runs.delete(id)
    if (runs.size === 0 && helper !== undefined && !helper.dead) hold(helper, false)
  }

  const died = (h: Helper, why: string): void => {
    if (h.dead) return
    h.dead = true
    if (helper === h) helper = undefined
    const lost = [...runs.values()]
    runs.clear()
    for (const events of lost)
      events.lost(
        `the spawner process (pid ${h.child.pid ?? '?'}) ${why} while the command ran; the next command starts a new one`,
      )
  }

  const startHelper = (): Helper => {
    // Its own environment is empty (no NODE_OPTIONS, no inspector); each command gets the env it is given.
    const child = builtin('node:child_process').spawn(process.execPath, ['-e', SPAWNER_SOURCE, SPAWNER_MARK], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: {},
    })
    let exited!: () => void
    const h: Helper = {
      child,
      input: child.stdin as Writable,
      output: child.stdout as Readable,
      exited: new Promise<void>((resolve) => (exited = resolve)),
      dead: false,
    }
    const reader = new FrameReader(dispatch)
    h.output.on('data', (chunk: Buffer) => reader.push(chunk))
    h.input.on('error', () => died(h, 'could not be written to'))
    child.once('error', (error) => {
      died(h, `could not be started (${error.message})`)
      exited()
    })
    child.once('exit', (code, signal) => {
      died(h, signal !== null ? `was killed by ${signal}` : `exited with code ${code ?? '?'}`)
      exited()
    })
    return h
  }

  const send = (id: number, type: number): void => {
    const h = helper
    if (h !== undefined && !h.dead && runs.has(id)) h.input.write(frame(type, id))
  }

  return {
    launch(request, events) {
      if (helper === undefined || helper.dead) helper = startHelper()
      const id = nextId++
      // A run id is a u32 on the wire; after 4 billion commands it starts again.
      if (nextId > 0xffff_ffff) nextId = 1
      runs.set(id, events)
      hold(helper, true)
      const body = JSON.stringify({ ...request, stdin: request.stdin ?? null })
      helper.input.write(frame(FRAME.SPAWN, id, body))
      return {
        pause: () => send(id, FRAME.PAUSE),
        resume: () => send(id, FRAME.RESUME),
        abandon: () => {
          send(id, FRAME.ABANDON)
          forget(id)
        },
        release: () => forget(id),
      }
    },
    async close() {
      const h = helper
      helper = undefined
      if (h === undefined || h.dead) return
      // Referenced until it has gone: an idle helper is unreferenced, and the app would otherwise
      // end with this wait unsettled.
      h.child.ref()
      h.input.end()
      await h.exited
    },
  }
}

/** The helper every runner of this process shares, and how many runners hold a share of it. */
const processWide: { spawner: Spawner | undefined; shares: number } = { spawner: undefined, shares: 0 }

/**
 * A runner's share of the process-wide helper (decision 172): taken with its first command,
 * given back by `close()`; the helper ends when the last share is given back, and starts again
 * with the next command. A helper that dies fails the commands of every runner it ran for.
 */
export function sharedSpawner(): Spawner {
  let holding = false
  return {
    launch(request, events) {
      if (!holding) {
        holding = true
        processWide.shares++
      }
      processWide.spawner ??= createSpawner()
      return processWide.spawner.launch(request, events)
    },
    async close() {
      if (!holding) return
      holding = false
      if (--processWide.shares === 0) await processWide.spawner?.close()
    },
  }
}
