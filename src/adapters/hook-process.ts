/**
 * Runs a command hook: bash -c with the hook's JSON on stdin, through the shared spawner (its own
 * process group, the same kill policy as Bash), stdout and stderr kept apart and capped, in an
 * environment built from an allowlist.
 */
import type { Sandbox } from '../ports/sandbox.port.js'
import { buildChildEnvironment, type ChildEnvironmentOptions } from './child-environment.js'
import { describeCleanup, sandboxFor, spawnProcess, type SpawnedProcess } from './spawn-process.js'

export interface HookProcessResult {
  exitCode: number | null
  /** The signal that ended it, when it did not exit by itself. */
  exitSignal?: string
  stdout: string
  stderr: string
  timedOut: boolean
  /** Why it was cut short (output too large, interrupted). */
  problem?: string
  /** The turn was interrupted: the hook did not run, or was killed while it ran. */
  interrupted?: boolean
  /** Why it could not be started at all: no hook ran. */
  startError?: string
  /** What had to be killed, in words (see describeCleanup). */
  cleanup?: string
}

/** Bytes of stdout, and of stderr, a hook may write before it is stopped. */
export const HOOK_OUTPUT_LIMIT = 1024 * 1024

export interface HookProcessOptions {
  cwd: string
  stdin: string
  timeoutMs: number
  signal: AbortSignal
  /** The hook's environment (default: the allowlist alone). */
  env?: ChildEnvironmentOptions
  /** The sandbox the hook runs in (docs/decisions/processes.md, 113). Absent: none. */
  sandbox?: Sandbox
}

export async function runHookProcess(command: string, options: HookProcessOptions): Promise<HookProcessResult> {
  // An already-aborted signal never fires 'abort': do not start a hook nobody will wait for.
  if (options.signal.aborted)
    return {
      exitCode: null,
      stdout: '',
      stderr: '',
      timedOut: false,
      problem: 'the turn was interrupted before the hook ran',
      interrupted: true,
    }
  const sandbox = sandboxFor(options.sandbox)
  // Fails closed: a hook that cannot run in its sandbox does not run (the runner blocks the call).
  const problem = sandbox === undefined ? undefined : await sandbox.check()
  if (problem !== undefined) return { exitCode: null, stdout: '', stderr: '', timedOut: false, startError: problem }
  const stdout = new CappedText(HOOK_OUTPUT_LIMIT)
  const stderr = new CappedText(HOOK_OUTPUT_LIMIT)
  const keep = (text: CappedText) => (chunk: Buffer) => {
    if (!text.push(chunk)) child.stop()
  }
  const child: SpawnedProcess = spawnProcess({
    script: command,
    cwd: options.cwd,
    env: buildChildEnvironment(options.env),
    stdin: options.stdin,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    onStdout: keep(stdout),
    onStderr: keep(stderr),
    ...(sandbox === undefined ? {} : { sandbox }),
  })
  const outcome = await child.done
  const result: HookProcessResult = {
    exitCode: outcome.exitCode,
    stdout: stdout.text(),
    stderr: stderr.text(),
    timedOut: outcome.end === 'timed-out',
  }
  if (outcome.exitSignal !== null) result.exitSignal = outcome.exitSignal
  if (outcome.startError !== undefined) result.startError = outcome.startError
  if (stdout.over || stderr.over)
    result.problem = `it wrote more than ${HOOK_OUTPUT_LIMIT} bytes of output and was stopped`
  else if (outcome.end === 'aborted') {
    result.problem = 'the turn was interrupted while it ran, and it was killed'
    result.interrupted = true
  }
  const cleanup = describeCleanup(outcome.cleanup)
  if (cleanup !== undefined) result.cleanup = cleanup
  return result
}

/** Output up to a limit; `push` answers false once it is past it. */
class CappedText {
  private readonly chunks: Buffer[] = []
  private bytes = 0
  over = false

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): boolean {
    if (this.over) return false
    if (this.bytes + chunk.length > this.limit) {
      this.over = true
      return false
    }
    this.chunks.push(chunk)
    this.bytes += chunk.length
    return true
  }

  /** The text, without one final newline (as a shell's `$(…)` would take it). */
  text(): string {
    return Buffer.concat(this.chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '')
  }
}
