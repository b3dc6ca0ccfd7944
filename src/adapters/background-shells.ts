/**
 * The background shells of one kernel (docs/decisions/processes.md "Background shells"): Bash
 * starts them, BashOutput reads their new output, KillShell stops them, and `kernel.close()`
 * stops every one still running. Each start, read and exit is an event in the turn envelope of
 * the turn that started the shell. Should the process end without `close()`, an `exit` handler
 * SIGKILLs the process groups still running, so no shell outlives the app.
 */
import type { KernelEventInput } from '../events/event.schema.js'
import type {
  BackgroundExit,
  BackgroundProcess,
  BackgroundShells,
  IdGenerator,
  ProcessRunner,
  ShellActor,
  ShellRead,
  UnreadOutput,
} from '../ports/index.js'
import { signalGroup } from './process-table.js'

export interface BackgroundShellsOptions {
  readonly runner: ProcessRunner
  readonly ids: IdGenerator
  /** Appends an event to the kernel's log. */
  record(event: KernelEventInput): void
}

interface Shell {
  readonly id: string
  readonly command: string
  readonly turnId: string
  readonly process: BackgroundProcess
  /** Why it is being stopped, once it is. */
  stopping?: { how: 'killed' | 'closed'; by?: string }
  /** Settles once its exit is recorded. */
  readonly recorded: Promise<BackgroundExit>
}

/**
 * Creates the registry of background shells a kernel hands its tools (`ports.shells`).
 *
 * @example
 * const record = (event: KernelEventInput) => void log.append(event)
 * const shells = createBackgroundShells({ runner: createProcessRunner(), ids: randomIds, record })
 */
export function createBackgroundShells(options: BackgroundShellsOptions): BackgroundShells {
  const shells = new Map<string, Shell>()
  let closed = false

  const recordExit = (shell: Shell, exit: BackgroundExit): BackgroundExit => {
    running.delete(shell.process)
    const stopping = shell.stopping
    const how = stopping?.how ?? 'exited'
    try {
      options.record({
        type: 'shell.exited',
        turnId: shell.turnId,
        shellId: shell.id,
        exitCode: exit.exitCode,
        signal: exit.exitSignal,
        how,
        ...(stopping?.by !== undefined ? { killedBy: stopping.by } : {}),
        ...(exit.startError !== undefined ? { error: exit.startError } : {}),
      })
    } catch {
      // A log that failed has stopped the session already; the shell is gone all the same.
    }
    return exit
  }

  const freshId = (): string => {
    const id = options.ids.next('shell')
    if (!shells.has(id)) return id
    let n = 2
    while (shells.has(`${id}_${n}`)) n++
    return `${id}_${n}`
  }

  return {
    async start(command, { cwd, by, sandbox }) {
      if (closed) return { error: 'the session is closing, so no background command can start' }
      const start = options.runner.start?.bind(options.runner)
      if (start === undefined)
        return { error: 'the kernel was given a process runner that cannot run commands in the background' }
      // Fails closed, as a foreground command: a sandbox that cannot run starts nothing.
      const problem = sandbox === undefined || sandbox.policy.mode === 'off' ? undefined : await sandbox.check()
      if (problem !== undefined) return { error: problem }
      const child = start(command, sandbox === undefined ? { cwd } : { cwd, sandbox })
      const id = freshId()
      if (child.pid !== undefined) {
        running.add(child)
        watchProcessExit()
      }
      options.record({
        type: 'shell.started',
        turnId: by.turnId,
        shellId: id,
        command,
        startedBy: by.toolUseId,
        cwd,
        ...(child.pid !== undefined ? { pid: child.pid } : {}),
      })
      // The exit is recorded after the start: a shell that fails at once still has its start first.
      const shell: Shell = {
        id,
        command,
        turnId: by.turnId,
        process: child,
        recorded: child.done.then((exit) => recordExit(shell, exit)),
      }
      shells.set(id, shell)
      if (child.pid !== undefined) return { shellId: id, pid: child.pid }
      const exit = await shell.recorded
      return { error: exit.startError ?? 'bash could not be started' }
    },

    read(shellId, { by, filter }) {
      const shell = shells.get(shellId)
      if (shell === undefined) return undefined
      const exit = shell.process.exit
      const { output, filteredLines } = filtered(shell.process.take(), filter)
      const running = exit === undefined
      options.record({
        type: 'shell.read',
        turnId: shell.turnId,
        shellId,
        readBy: by.toolUseId,
        chars: output.head.length + output.tail.length,
        ...(output.droppedChars > 0 ? { droppedChars: output.droppedChars } : {}),
        running,
      })
      const read: ShellRead = {
        ...output,
        shellId,
        command: shell.command,
        running,
        exitCode: exit?.exitCode ?? null,
        exitSignal: exit?.exitSignal ?? null,
        filteredLines,
      }
      return read
    },

    async kill(shellId, { by }: { by: ShellActor }) {
      const shell = shells.get(shellId)
      if (shell === undefined) return undefined
      const alreadyExited = shell.process.exit !== undefined
      if (!alreadyExited && shell.stopping === undefined) {
        shell.stopping = { how: 'killed', by: by.toolUseId }
        shell.process.stop()
      }
      const exit = await shell.recorded
      return { shellId, command: shell.command, alreadyExited, exitCode: exit.exitCode, exitSignal: exit.exitSignal }
    },

    ids: () => [...shells.keys()],

    async closeAll() {
      closed = true
      for (const shell of shells.values()) {
        if (shell.process.exit !== undefined || shell.stopping !== undefined) continue
        shell.stopping = { how: 'closed' }
        shell.process.stop()
      }
      await Promise.all([...shells.values()].map((shell) => shell.recorded))
    },
  }
}

/** The lines of the output `filter` keeps, and how many it left out. */
function filtered(
  output: UnreadOutput,
  filter: ((line: string) => boolean) | undefined,
): { output: UnreadOutput; filteredLines: number } {
  if (filter === undefined) return { output, filteredLines: 0 }
  let left = 0
  const keep = (text: string): string => {
    if (text === '') return ''
    const lines = text.split('\n')
    const last = lines.at(-1) === '' ? lines.pop() : undefined
    const kept = lines.filter((line) => filter(line) || (left++, false))
    return kept.length === 0 ? '' : kept.join('\n') + (last === '' ? '\n' : '')
  }
  const head = keep(output.head)
  const tail = keep(output.tail)
  return { output: { head, tail, droppedChars: output.droppedChars }, filteredLines: left }
}

/** Background processes still running in this Node process: killed if it exits without close(). */
const running = new Set<BackgroundProcess>()
let exitHandler: (() => void) | undefined

function watchProcessExit(): void {
  if (exitHandler !== undefined) return
  exitHandler = () => {
    for (const child of running)
      if (child.pid !== undefined && child.exit === undefined) signalGroup(child.pid, 'SIGKILL')
  }
  process.once('exit', exitHandler)
}
