/**
 * Runs Bash commands through the shared spawner (spawn-process.ts: one process group per command,
 * one kill policy with command hooks). stderr is redirected into stdout inside the shell, so output
 * keeps the order it was written in. Memory stays bounded however much a command writes: only the
 * head and tail are kept, the full output streams to the caller's file, and past a hard cap the
 * command is stopped. Progress is coalesced.
 */
import type { ProcessResult, ProcessRunner } from '../ports/index.js'
import type { ProcessRunOptions } from '../ports/process-runner.port.js'
import { startBackgroundProcess } from './background-process.js'
import type { Sandbox } from '../ports/sandbox.port.js'
import { buildChildEnvironment, CHILD_ENVIRONMENT_OPTIONS, type ChildEnvironmentOptions } from './child-environment.js'
import { withCwdReport } from './cwd-report.js'
import { DEFAULT_MAX_OUTPUT_BYTES, OutputCapture, type CapturedOutput } from './output-capture.js'
import { createProgressReporter } from './output-progress.js'
import { describeCleanup, sandboxFor, spawnProcess, type SpawnOutcome } from './spawn-process.js'
import { sharedSpawner, type Spawner } from './spawner.js'
import { checkKnownOptions, checkOptionsObject, optionNames } from '../util/known-options.js'

/** How a process runner is set up. */
export interface ProcessRunnerOptions {
  /** The commands' environment: an allowlist of the host's, plus what the app adds. */
  readonly env?: ChildEnvironmentOptions
  /** Output past which a command is stopped (default 64 MiB). */
  readonly maxOutputBytes?: number
  /**
   * The sandbox commands run in unless a run names its own (docs/decisions/processes.md, 113).
   * Absent: none.
   */
  readonly sandbox?: Sandbox
  /**
   * Who forks the commands (docs/decisions/processes.md, 164): `'helper'`, a small long-lived
   * process started on the first command, so this process never forks per command (faster, and it
   * kills what it runs if this process dies) — one for every runner of the process, ended when
   * the last runner that used it closes (decision 172); `'inline'`, this process spawns each
   * command itself. The kill policy, output order and caps, sandbox and environment are the same
   * either way. Background commands always start inline. Default `'helper'`.
   */
  readonly spawner?: 'helper' | 'inline'
}

/** What every Bash command gets, whatever the host has: no pager waits for a keypress. */
const BASH_DEFAULTS = { TERM: 'dumb', PAGER: 'cat', GIT_PAGER: 'cat' }

const PROCESS_RUNNER_OPTIONS = optionNames<ProcessRunnerOptions>()('env', 'maxOutputBytes', 'sandbox', 'spawner')

/**
 * A process runner for Bash.
 *
 * @example
 * createKernel({ tools, ports: { processes: createProcessRunner({ env: { allow: ['CI'] } }) } })
 */
export function createProcessRunner(options: ProcessRunnerOptions = {}): ProcessRunner {
  checkOptionsObject('createProcessRunner', options, PROCESS_RUNNER_OPTIONS)
  checkKnownOptions('createProcessRunner: env', options.env, CHILD_ENVIRONMENT_OPTIONS)
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES
  const which = options.spawner ?? DEFAULT_SPAWNER
  if (which !== 'helper' && which !== 'inline')
    throw new TypeError(`createProcessRunner: spawner must be 'helper' or 'inline', got ${JSON.stringify(which)}`)
  // The helper itself starts on the first command (a share starts nothing).
  const spawner = which === 'helper' ? sharedSpawner() : undefined
  return {
    async run(command, runOptions) {
      if (runOptions.signal.aborted) return { ...emptyResult(), aborted: true }
      const sandbox = sandboxFor(runOptions.sandbox ?? options.sandbox)
      // Fails closed: a sandbox that cannot run stops the command from starting at all.
      const problem = sandbox === undefined ? undefined : await sandbox.check()
      if (problem !== undefined) return { ...emptyResult(), startError: problem }
      // Built per run: a variable the app sets later in process.env reaches later commands, as before.
      const env = { ...buildChildEnvironment(options.env, BASH_DEFAULTS), ...runOptions.env }
      const how = { maxOutputBytes, sandbox, spawner }
      if (runOptions.reportCwd !== true) return runBash(command, runOptions, env, how)
      // Where the shell ended up, for the session's next call (docs/session-context.md §Bash).
      const report = withCwdReport(command)
      const result = await runBash(report.script, runOptions, env, how)
      const cwd = await report.read()
      return cwd === undefined ? result : { ...result, cwd }
    },
    // Background commands get the same environment (docs/decisions/processes.md "Background shells").
    start: (command, { cwd, sandbox }) =>
      startBackgroundProcess(command, {
        cwd,
        env: buildChildEnvironment(options.env, BASH_DEFAULTS),
        sandbox: sandboxFor(sandbox ?? options.sandbox),
      }),
    close: () => spawner?.close() ?? Promise.resolve(),
  }
}

/** Who forks Bash commands unless the app says (docs/decisions/processes.md, 164). */
const DEFAULT_SPAWNER: 'helper' | 'inline' = 'helper'

/** The runner with the default allowlist and cap (the kernel's default). */
export const defaultProcessRunner: ProcessRunner = createProcessRunner()

/** The name the kernel has wired so far; the same runner as {@link defaultProcessRunner}. */
export const execaProcessRunner: ProcessRunner = defaultProcessRunner

async function runBash(
  command: string,
  { cwd, timeoutMs, signal, onOutput, openOutputFile }: ProcessRunOptions,
  env: Record<string, string>,
  {
    maxOutputBytes,
    sandbox,
    spawner,
  }: { maxOutputBytes: number; sandbox: Sandbox | undefined; spawner: Spawner | undefined },
): Promise<ProcessResult> {
  const progress = onOutput === undefined ? undefined : createProgressReporter(onOutput)
  const capture = new OutputCapture({
    open: openOutputFile,
    maxBytes: maxOutputBytes,
    onLimit: () => child.stop(),
    pause: () => child.pause(),
    resume: () => child.resume(),
  })
  const onChunk = (chunk: Buffer): void => {
    capture.push(chunk)
    progress?.push(chunk)
  }
  const child = spawnProcess({
    script: command,
    mergeStderr: true,
    cwd,
    env,
    timeoutMs,
    signal,
    onStdout: onChunk,
    // Only what bash says before its stderr is redirected arrives here.
    onStderr: onChunk,
    // On abort the interrupted result is built from progress right away: report what is buffered.
    onEnding: () => progress?.flush(),
    ...(sandbox === undefined ? {} : { sandbox }),
    ...(spawner === undefined ? {} : { spawner }),
  })
  const outcome = await child.done
  progress?.end()
  return toResult(outcome, await capture.finish(), maxOutputBytes)
}

function toResult(outcome: SpawnOutcome, captured: CapturedOutput, maxOutputBytes: number): ProcessResult {
  const result: ProcessResult = {
    output: captured.head,
    tail: captured.tail,
    totalBytes: captured.totalBytes,
    omittedBytes: captured.omittedBytes,
    exitCode: outcome.exitCode,
    timedOut: outcome.end === 'timed-out',
    aborted: outcome.end === 'aborted',
  }
  if (captured.savedPath !== undefined) result.savedPath = captured.savedPath
  if (captured.saveError !== undefined) result.saveError = captured.saveError
  if (outcome.exitSignal !== null) result.exitSignal = outcome.exitSignal
  if (outcome.end === 'stopped' && captured.overLimit) result.outputLimitBytes = maxOutputBytes
  if (outcome.startError !== undefined) result.startError = outcome.startError
  if (outcome.failure !== undefined) result.failure = outcome.failure
  const cleanup = describeCleanup(outcome.cleanup)
  if (cleanup !== undefined) result.cleanup = cleanup
  return result
}

function emptyResult(): ProcessResult {
  return { output: '', tail: '', totalBytes: 0, omittedBytes: 0, exitCode: null, timedOut: false, aborted: false }
}
