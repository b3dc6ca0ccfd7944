/**
 * The one way the kernel starts a shell: Bash commands and command hooks both run through here, so
 * both follow one kill policy.
 *
 * - The command gets its own process group (and session).
 * - On timeout, abort or `stop()`: SIGTERM the group, SIGKILL it after `killGraceMs`. Descendants
 *   that left the group (`setsid`) are found by their parent links first and get the same signals.
 * - When the shell exits, whatever it left in its group is SIGKILLed: a finished command leaves
 *   nothing running behind it.
 * - The call waits for the output pipes only `pipeGraceMs` after the shell is gone (or was sent
 *   SIGKILL). A process still holding them then has escaped the group; it is looked up by the
 *   output socket it holds (only a descendant can hold it) and killed, and the streams are
 *   destroyed. So a timeout ends the call on time, whatever holds the pipes.
 *
 * Who forks: this process, or the spawner's long-lived helper process (`request.spawner`,
 * spawner.ts, docs/decisions/processes.md, 164); either way the policy above runs here.
 *
 * node:child_process, not execa: execa waits for the pipes and kills only the main process, which
 * is the behaviour this replaces, and costs about 200 ms to import.
 */
import type { ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import type { Writable } from 'node:stream'
import type { Sandbox } from '../ports/sandbox.port.js'
import {
  descendantsOf,
  descriptorTarget,
  groupMembers,
  holdersOf,
  parseStat,
  processInfo,
  signalGroup,
  signalProcess,
  type ProcessInfo,
} from './process-table.js'
import type { RemoteRun, Spawner } from './spawner.js'
import { builtin } from '../util/builtin.js'

/** After SIGTERM, how long the processes have to clean up before SIGKILL. */
export const KILL_GRACE_MS = 1000
/** After the shell is gone, how long its output may stay open before the runner stops waiting for it. */
export const PIPE_GRACE_MS = 250
/**
 * Graces waited past the first when no process can be found holding the output open: on a loaded
 * machine the output's last reads and its end can simply be late, and giving up would lose them.
 */
export const UNHELD_GRACES = 8

export interface SpawnRequest {
  /** The bash script to run. */
  readonly script: string
  /** Redirect the script's stderr into its stdout, so output keeps the order it was written in. */
  readonly mergeStderr?: boolean
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  /** Written to the command's stdin, which is then closed. Absent: no stdin at all. */
  readonly stdin?: string
  /** Infinity: no deadline (a background shell). */
  readonly timeoutMs: number
  readonly signal: AbortSignal
  onStdout(chunk: Buffer): void
  onStderr(chunk: Buffer): void
  /** Called once, synchronously, when the run starts being ended (timeout, abort, stop), before any signal. */
  onEnding?(): void
  readonly killGraceMs?: number
  readonly pipeGraceMs?: number
  /**
   * The sandbox the shell runs in (docs/decisions/processes.md, 113); the caller has checked it
   * can run. Absent: none.
   */
  readonly sandbox?: Sandbox
  /**
   * The long-lived helper that starts the shell (docs/decisions/processes.md, 164). Absent: this
   * process spawns it. The kill policy is the same either way: it runs here.
   */
  readonly spawner?: Spawner
}

/** How the run ended. */
export type SpawnEnd = 'exited' | 'timed-out' | 'aborted' | 'stopped' | 'not-started'

/** What had to be killed, so the result can say it truthfully. */
export interface SpawnCleanup {
  /** The group was signalled to end the run (timeout, abort, stop). */
  groupKilled: boolean
  /** Processes still running in the group when the shell exited by itself, killed then. */
  leftInGroup: number
  /** Descendants that had left the group (setsid), found and killed. */
  escapedKilled: number
  /** The output was still held open by a process that could not be found; it was not waited for. */
  abandoned: boolean
}

export interface SpawnOutcome {
  end: SpawnEnd
  exitCode: number | null
  /** The signal that ended the shell, when it did not exit by itself. */
  exitSignal: NodeJS.Signals | null
  /** Why the shell could not be started (end: 'not-started'). */
  startError?: string
  /** Why the run failed after it started (the spawner's helper died); its processes were killed. */
  failure?: string
  cleanup: SpawnCleanup
}

/** A running command. */
export interface SpawnedProcess {
  /** Ends the command as a timeout does (for the caller's own limits, e.g. too much output). */
  stop(): void
  /** Stops reading its output (it blocks when the pipe fills); `resume` reads on. */
  pause(): void
  resume(): void
  readonly done: Promise<SpawnOutcome>
  /** The shell's pid (its process group's id); undefined when it did not start. */
  readonly pid: number | undefined
}

/** The sandbox to apply, or undefined when there is none or its mode is `off`. */
export function sandboxFor(sandbox: Sandbox | undefined): Sandbox | undefined {
  return sandbox === undefined || sandbox.policy.mode === 'off' ? undefined : sandbox
}

/** Starts `bash` with `request.script` under the kill policy above. */
export function spawnProcess(request: SpawnRequest): SpawnedProcess {
  const run = new ShellRun(request)
  return {
    stop: () => run.end('stopped'),
    pause: () => run.pause(),
    resume: () => run.resume(),
    done: run.done,
    // Known at once for a local spawn; through the spawner, once the helper has said it.
    get pid() {
      return run.shellPid
    },
  }
}

/**
 * The first line of every script: bash waits on fd 3 until the runner has noted its output sockets
 * (a fast command would otherwise be gone before they can be read, and with it the only way to
 * tell later who holds them), then closes fd 3. It takes one line, as `exec 2>&1` did before.
 */
function prelude(request: SpawnRequest): string {
  return `read -r -u 3 _; exec 3<&-${request.mergeStderr === true ? ' 2>&1' : ''}`
}

/** `bash -c` with the prelude, wrapped in the sandbox when there is one. */
function commandLine(request: SpawnRequest): { file: string; args: readonly string[] } {
  // --norc: bash sources ~/.bashrc when its stdin is a socket (as a hook's is), which would run
  // the user's shell setup before every hook and could write into its JSON answer.
  const shell = { file: 'bash', args: ['--norc', '--noprofile', '-c', `${prelude(request)}\n${request.script}`] }
  return request.sandbox?.wrap(shell, request.cwd) ?? shell
}

class ShellRun {
  readonly done: Promise<SpawnOutcome>
  private settle!: (outcome: SpawnOutcome) => void
  private child: ChildProcess | undefined
  /** The run in the spawner's helper, when it starts the shell. */
  private remote: RemoteRun | undefined
  /** An end asked for before the helper said the shell's pid: applied when it does. */
  private pendingEnd: 'timed-out' | 'aborted' | 'stopped' | undefined
  private failure: string | undefined
  private readonly killGraceMs: number
  private readonly pipeGraceMs: number
  /** Graces waited past the first while no process could be found holding the output open. */
  private unheldGraces = 0
  private readonly cleanup: SpawnCleanup = { groupKilled: false, leftInGroup: 0, escapedKilled: 0, abandoned: false }
  private outcome: Pick<SpawnOutcome, 'end' | 'exitCode' | 'exitSignal'> = {
    end: 'exited',
    exitCode: null,
    exitSignal: null,
  }
  /** The shell's pid, which is also its process group's id. */
  private pid: number | undefined
  /** The shell as /proc first saw it: its start time dates what came after it (undefined without /proc). */
  private shell: ProcessInfo | undefined
  /** What the shell's stdout and stderr are (`socket:[…]`): whoever holds one holds the output open. */
  private readonly outputs = new Set<string>()
  private readonly escaped = new Map<number, ProcessInfo>()
  private exited = false
  private openStreams = 2
  private ending = false
  private settled = false
  private readonly timers: { timeout?: NodeJS.Timeout; kill?: NodeJS.Timeout; pipes?: NodeJS.Timeout } = {}
  private readonly onAbort = (): void => this.end('aborted')

  get shellPid(): number | undefined {
    return this.pid
  }

  constructor(private readonly request: SpawnRequest) {
    this.killGraceMs = request.killGraceMs ?? KILL_GRACE_MS
    this.pipeGraceMs = request.pipeGraceMs ?? PIPE_GRACE_MS
    this.done = new Promise((resolve) => (this.settle = resolve))
    try {
      if (request.spawner !== undefined) this.startRemote(request.spawner)
      else this.child = this.start()
    } catch (error) {
      // spawn throws for what it cannot even try (a NUL byte in an argument or a variable).
      this.failedToStart(error as Error)
    }
  }

  private start(): ChildProcess {
    const { request } = this
    const line = commandLine(request)
    const child = builtin('node:child_process').spawn(line.file, line.args, {
      cwd: request.cwd,
      env: request.env,
      detached: true,
      stdio: [request.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', 'pipe'],
    })
    child.once('error', (error) => {
      if (child.pid === undefined) this.failedToStart(error)
    })
    if (child.pid === undefined) return child
    this.observe(child.pid)
    const go = child.stdio[3] as Writable | null
    go?.on('error', () => {})
    go?.end('\n')
    child.once('exit', (code, signal) => this.exitedWith(code, signal))
    child.stdout?.on('data', (chunk: Buffer) => request.onStdout(chunk))
    child.stderr?.on('data', (chunk: Buffer) => request.onStderr(chunk))
    for (const stream of [child.stdout, child.stderr]) stream?.once('close', () => this.streamClosed())
    if (child.stdin !== null) {
      // A hook that does not read its input exits before taking it all: that is not an error.
      child.stdin.on('error', () => {})
      child.stdin.end(request.stdin)
    }
    // A background shell has no deadline (Infinity): it runs until stopped.
    if (Number.isFinite(request.timeoutMs))
      this.timers.timeout = setTimeout(() => this.end('timed-out'), request.timeoutMs)
    request.signal.addEventListener('abort', this.onAbort, { once: true })
    return child
  }

  /** The shell started by the spawner's helper; the same kill policy, run from here. */
  private startRemote(spawner: Spawner): void {
    const { request } = this
    const line = commandLine(request)
    const merged = request.mergeStderr === true
    this.remote = spawner.launch(
      {
        file: line.file,
        args: line.args,
        cwd: request.cwd,
        env: request.env,
        stdin: request.stdin,
        fds: merged ? [1] : [1, 2],
      },
      {
        spawned: (pid, stat, targets) => {
          this.pid = pid
          this.shell = parseStat(pid, stat)
          for (const target of targets) if (target !== null) this.outputs.add(target)
          if (this.pendingEnd !== undefined) this.end(this.pendingEnd)
        },
        failed: (message) => this.failedToStart(new Error(message)),
        stdout: (chunk) => request.onStdout(chunk),
        stderr: (chunk) => request.onStderr(chunk),
        streamClosed: () => this.streamClosed(),
        exited: (code, signal) => this.exitedWith(code, signal),
        lost: (message) => this.lost(message),
      },
    )
    if (Number.isFinite(request.timeoutMs))
      this.timers.timeout = setTimeout(() => this.end('timed-out'), request.timeoutMs)
    request.signal.addEventListener('abort', this.onAbort, { once: true })
  }

  /** The helper died mid-run: the command's tree is killed from here, and the run fails saying so. */
  private lost(message: string): void {
    if (this.settled) return
    const pgid = this.pid
    if (pgid !== undefined && !this.exited) {
      for (const info of descendantsOf(pgid)) if (info.pgid !== pgid) this.escaped.set(info.pid, info)
      this.cleanup.groupKilled = true
      this.signalAll('SIGKILL')
    }
    this.failure = message
    this.finish()
  }

  /** Notes who the shell is and what its output sockets are, while the prelude holds it. */
  private observe(pid: number): void {
    this.pid = pid
    this.shell = processInfo(pid)
    // With stderr merged, the shell closes its own stderr before running anything: no descendant can hold it.
    for (const fd of this.request.mergeStderr === true ? [1] : [1, 2]) {
      const target = descriptorTarget(pid, fd)
      if (target !== undefined) this.outputs.add(target)
    }
  }

  private failedToStart(error: Error): void {
    const startError = existsSync(this.request.cwd)
      ? `${this.request.sandbox === undefined ? 'bash' : 'the sandbox'} could not be started (${error.message})`
      : `the working directory ${this.request.cwd} does not exist (${error.message})`
    this.outcome.end = 'not-started'
    this.finish(startError)
  }

  /** Ends the run early: SIGTERM the group and the escaped descendants, SIGKILL after the grace. */
  end(reason: 'timed-out' | 'aborted' | 'stopped'): void {
    const pgid = this.pid
    if (this.settled || this.ending) return
    if (pgid === undefined) {
      // Through the spawner the pid comes a moment after the start: the end waits for it.
      if (this.remote !== undefined) this.pendingEnd ??= reason
      return
    }
    this.ending = true
    this.outcome.end = reason
    clearTimeout(this.timers.timeout)
    this.request.onEnding?.()
    // Found before any signal: once their parents die, nothing links them to this command any more.
    // (After the shell has exited its pid may name another process: no walk then.)
    if (!this.exited) for (const info of descendantsOf(pgid)) if (info.pgid !== pgid) this.escaped.set(info.pid, info)
    this.cleanup.groupKilled = true
    this.signalAll('SIGTERM')
    this.timers.kill = setTimeout(() => {
      this.signalAll('SIGKILL')
      this.waitForPipes()
    }, this.killGraceMs)
    if (this.exited) this.waitForPipes()
  }

  /**
   * Signals the group while the shell is not yet reaped (its pid cannot have been reused; once it
   * has exited, its group was swept then) and the escaped processes still known by their start time.
   */
  private signalAll(signal: NodeJS.Signals): void {
    if (this.pid !== undefined && !this.exited) signalGroup(this.pid, signal)
    for (const info of this.escaped.values()) {
      // One that is already gone was not killed by us, and is not counted as if it were.
      if (!signalProcess(info, signal) && signal === 'SIGTERM') this.escaped.delete(info.pid)
    }
  }

  private exitedWith(code: number | null, signal: NodeJS.Signals | null): void {
    this.exited = true
    this.outcome.exitCode = code
    this.outcome.exitSignal = signal
    clearTimeout(this.timers.timeout)
    if (this.pid !== undefined) this.sweepGroup(this.pid)
    this.waitForPipes()
    this.settleIfDone()
  }

  /** The shell is gone: what it left in its group goes too. */
  private sweepGroup(pgid: number): void {
    if (!signalGroup(pgid, 0)) return
    if (!this.ending) this.cleanup.leftInGroup = groupMembers(pgid).length
    signalGroup(pgid, 'SIGKILL')
  }

  private streamClosed(): void {
    this.openStreams--
    this.settleIfDone()
  }

  private settleIfDone(): void {
    if (this.exited && this.openStreams === 0) this.finish()
  }

  /** Gives the output a short grace to close, then kills whoever still holds it and stops waiting. */
  private waitForPipes(): void {
    if (this.settled || this.timers.pipes !== undefined) return
    this.timers.pipes = setTimeout(() => this.abandonPipes(), this.pipeGraceMs)
  }

  private abandonPipes(): void {
    if (this.settled) return
    if (this.openStreams > 0) {
      // Only a descendant can hold the other end of the shell's output socket (it inherited it).
      const shell = this.shell
      const holders =
        shell === undefined ? [] : holdersOf(this.outputs, process.pid).filter((info) => info.start >= shell.start)
      for (const info of holders) {
        if (signalProcess(info, 'SIGKILL') && !this.escaped.has(info.pid)) this.escaped.set(info.pid, info)
      }
      // Nobody found holding it: most likely nobody does, and a loaded event loop has not read the
      // rest of the output and its end yet. Wait a few more graces before giving the output up.
      if (holders.length === 0 && this.unheldGraces++ < UNHELD_GRACES) {
        this.timers.pipes = setTimeout(() => this.abandonPipes(), this.pipeGraceMs)
        return
      }
      if (holders.length === 0) this.cleanup.abandoned = true
      this.child?.stdout?.destroy()
      this.child?.stderr?.destroy()
      this.remote?.abandon()
    }
    this.finish()
  }

  private finish(startError?: string): void {
    if (this.settled) return
    this.settled = true
    clearTimeout(this.timers.timeout)
    clearTimeout(this.timers.pipes)
    this.request.signal.removeEventListener('abort', this.onAbort)
    if (this.pid !== undefined && !this.exited) signalGroup(this.pid, 'SIGKILL')
    // Escaped processes that ignore SIGTERM still get their SIGKILL; nothing waits for it.
    this.timers.kill?.unref()
    this.cleanup.escapedKilled = this.escaped.size
    this.remote?.release()
    const outcome: SpawnOutcome = { ...this.outcome, cleanup: this.cleanup }
    if (startError !== undefined) outcome.startError = startError
    if (this.failure !== undefined) outcome.failure = this.failure
    this.settle(outcome)
  }

  pause(): void {
    this.child?.stdout?.pause()
    this.remote?.pause()
  }

  resume(): void {
    this.child?.stdout?.resume()
    this.remote?.resume()
  }
}

/**
 * What had to be killed, in words for the model (it may have meant a background process to live
 * on); undefined when the command ended by itself and left nothing behind.
 */
export function describeCleanup(cleanup: SpawnCleanup): string | undefined {
  const parts: string[] = []
  const processes = (n: number) => (n === 1 ? '1 process' : `${n} processes`)
  const was = (n: number) => (n === 1 ? 'was' : 'were')
  if (cleanup.groupKilled) {
    parts.push('its process group was killed')
    if (cleanup.escapedKilled > 0)
      parts.push(
        `${processes(cleanup.escapedKilled)} that had left the group (setsid) ${was(cleanup.escapedKilled)} found and killed too`,
      )
    if (cleanup.abandoned)
      parts.push('a process that left the group (setsid) kept the output open and was not waited for')
    return parts.join('; ')
  }
  if (cleanup.leftInGroup > 0)
    parts.push(
      `${processes(cleanup.leftInGroup)} it left running in the background ${was(cleanup.leftInGroup)} killed when it ended`,
    )
  if (cleanup.escapedKilled > 0)
    parts.push(
      `${processes(cleanup.escapedKilled)} that had left its process group (setsid) kept the output open after the command ended; ${cleanup.escapedKilled === 1 ? 'it was' : 'they were'} found and killed`,
    )
  if (cleanup.abandoned)
    parts.push(
      'a process that left its process group (setsid) kept the output open after the command ended; it was not waited for and may still be running',
    )
  return parts.length === 0 ? undefined : parts.join('; ')
}
