import { z } from 'zod'
import type { CommandVerdict, ProcessResult, ShellAnalyzer } from '../../ports/index.js'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import type { PredicateContext, ToolContext } from '../tool.types.js'
import { changeContext, type ContextChanged } from '../context-change.js'

export const BASH_DEFAULT_TIMEOUT_MS = 120_000
export const BASH_MAX_TIMEOUT_MS = 600_000

export interface BashInput {
  command: string
  timeout?: number | undefined
  description?: string | undefined
  run_in_background?: boolean | undefined
}

/** Characters of the output's beginning and end the model sees when its middle is omitted. */
export const BASH_HEAD_CHARS = 8_000
export const BASH_TAIL_CHARS = 20_000

export interface BashOutput {
  /** All of the output, or its beginning when `omittedBytes` is set. */
  output: string
  exitCode: number | null
  /** The signal that ended the shell, when it did not exit. */
  exitSignal?: string
  /** Bytes between `output` and `tail` the model does not see. */
  omittedBytes?: number
  tail?: string
  totalBytes?: number
  /** Where the full output is, when its middle was omitted. */
  savedPath?: string
  saveError?: string
  /** What had to be killed when it ended (background processes it left). */
  note?: string
  /** Set when it was started in the background: the id BashOutput and KillShell take. */
  shellId?: string
  pid?: number
}

const inputSchema = lazySchema(() =>
  z.strictObject({
    command: z.string().min(1).describe('The shell command to run with bash, in the project directory'),
    timeout: z
      .number()
      .int()
      .min(1)
      .max(BASH_MAX_TIMEOUT_MS)
      .optional()
      .describe(
        `Milliseconds before the command is killed (default ${BASH_DEFAULT_TIMEOUT_MS}, at most ${BASH_MAX_TIMEOUT_MS})`,
      ),
    description: z
      .string()
      .optional()
      .describe('Five to ten words saying what the command does, for the person watching'),
    run_in_background: z
      .boolean()
      .optional()
      .describe(
        'Start the command in the background and return its shell id at once (for dev servers and watchers); read its output with BashOutput, stop it with KillShell',
      ),
  }),
)

// The kernel hands the tool its shell analysis (the one its permission rules use): one analysis
// feeds the read-only verdict, concurrency safety and the rules. Asked without it, no command is
// read-only.
const readOnly = (input: { command: string }, context?: PredicateContext): boolean =>
  verdictOf(input.command, context?.shell).readOnly

/**
 * A command that may move the shell (`cd`, `pushd`, `popd`) is never concurrency-safe: only a
 * call that ran alone may move the session's working directory (docs/session-context.md §Bash).
 * The test is on the letters: a false alarm only runs a call alone.
 */
const MOVES_DIRECTORY = /(^|[^\w.-])(cd|pushd|popd)($|[^\w.-])/
const concurrencySafe = (input: { command: string }, context?: PredicateContext): boolean =>
  readOnly(input, context) && !MOVES_DIRECTORY.test(input.command)

const NO_ANALYSIS: CommandVerdict = Object.freeze({ readOnly: false, reason: 'no shell analysis was given' })

function verdictOf(command: string, shell: ShellAnalyzer | undefined): CommandVerdict {
  return shell === undefined ? NO_ANALYSIS : shell.readOnly(command)
}

/** Bash: runs a shell command in the session's working directory (where the last `cd` left it). */
// Progress: the command's output as it arrives, in chunks of text.
export const Bash = buildTool<BashInput, BashOutput, string, 'Bash'>({
  name: 'Bash',
  searchHint: 'shell command run execute terminal script',
  category: 'shell',
  description: () => 'Runs a shell command.',
  prompt: () =>
    [
      "Runs a bash command in the project's working directory and returns its output (stdout and stderr together, in the order written) and, when it is not 0, its exit code.",
      'The working directory carries over to the next call: after `cd sub` the next command runs in sub (it may not leave the project directory).',
      'Use it for builds, tests, git and other programs. To read, find or search files prefer Read, Glob and Grep: they are faster and their output is made for you.',
      'A non-zero exit code is not a failure of the tool: it is the command telling you something (grep finding nothing exits 1). A command that times out or cannot start is an error.',
      `The default timeout is ${BASH_DEFAULT_TIMEOUT_MS / 1000} s (at most ${BASH_MAX_TIMEOUT_MS / 1000} s); on timeout the command and every process it started are killed. There is no stdin: do not run interactive programs.`,
      'Long output is saved to a file and you get its beginning and end with the path; read the rest with Read or Grep. A command that writes far more (64 MiB unless the app set another limit) is stopped: redirect such output to a file and read parts of it.',
      'To keep a long-running command going (a dev server, a watcher), set run_in_background: you get a shell id at once; BashOutput reads what it printed since the last read, KillShell stops it, and it is stopped when the session ends. The timeout does not apply to it.',
      'Otherwise, processes the command leaves running in the background are killed when it ends. The command gets a minimal environment (PATH, HOME, locale and what the app adds), not the variables of the app that runs you.',
    ].join(' '),
  inputSchema,
  maxResultSizeChars: 30_000,
  isReadOnly: readOnly,
  shellCommand: (input) => input.command,
  activityDescription: (input) => `Running ${input.description ?? input.command}`,
  isConcurrencySafe: concurrencySafe,
  isDestructive: (input, context) => !readOnly(input, context),
  interruptBehavior: () => 'cancel',
  // Its own `timeout` (and kill) bounds a command: no kernel deadline on top (toolTimeoutMs).
  timeoutMs: Infinity,
  // Read-only commands run without asking; anything else asks unless a rule or mode allows it.
  checkPermissions: (input, { ports }) => {
    const verdict = verdictOf(input.command, ports.shell)
    if (verdict.readOnly) return { behavior: 'allow' }
    const shown = input.command.length > 200 ? `${input.command.slice(0, 200)}…` : input.command
    return {
      behavior: 'ask',
      message: `the command may change things (${verdict.reason ?? 'not read-only'}): ${shown}`,
    }
  },
  cascadesOnFailure: true,
  userFacingName: (input) => (input?.description !== undefined ? `Bash (${input.description})` : 'Bash'),
  async call(
    { command, timeout, run_in_background },
    { cwd, signal, ports, onProgress, turnId, toolUseId, session },
  ): Promise<BashOutput | ContextChanged<BashOutput>> {
    if (run_in_background === true) return startInBackground(command, { cwd, ports, turnId, toolUseId })
    const timeoutMs = timeout ?? BASH_DEFAULT_TIMEOUT_MS
    const open = ports.results.open?.bind(ports.results)
    const result = await ports.processes.run(command, {
      cwd,
      timeoutMs,
      signal,
      onOutput: onProgress,
      // The OS sandbox the app configured, with Bash's own override (docs/sandbox.md).
      ...(ports.sandbox === undefined ? {} : { sandbox: ports.sandbox.forTool('Bash') }),
      ...(open === undefined ? {} : { openOutputFile: () => open({ turnId, toolUseId }) }),
      // The session's environment entries, and where the shell ends up (the next call starts there).
      ...(session === undefined ? {} : { reportCwd: true, env: session.env }),
    })
    if (result.startError !== undefined) throw new Error(`the command could not be started: ${result.startError}`)
    const failure = failureText(result, timeoutMs)
    if (failure !== undefined) throw new Error(failure)
    const output = bashOutput(result)
    return result.cwd === undefined ? output : changeContext(output, { cwd: result.cwd })
  },
  mapToolResultToToolResultBlockParam(output, toolUseId) {
    if (output.shellId !== undefined)
      return { type: 'tool_result', tool_use_id: toolUseId, content: startedText(output.shellId, output.pid) }
    const text = shownText(output)
    const status = [
      output.exitCode === 0
        ? ''
        : output.exitCode === null
          ? `killed by ${output.exitSignal ?? 'a signal'}`
          : `exit code ${output.exitCode}`,
      output.note === undefined ? '' : `(${output.note})`,
    ]
      .filter((line) => line !== '')
      .join('\n')
    const content = text === '' || status === '' ? text + status : `${text}\n\n${status}`
    return { type: 'tool_result', tool_use_id: toolUseId, content }
  },
})

/** Starts the command as a background shell of the kernel (docs/decisions/processes.md "Background shells"). */
async function startInBackground(
  command: string,
  { cwd, ports, turnId, toolUseId }: Pick<ToolContext, 'cwd' | 'ports' | 'turnId' | 'toolUseId'>,
): Promise<BashOutput> {
  if (ports.shells === undefined)
    throw new Error(
      'background commands are not available here (the kernel has no background shells); run it without run_in_background',
    )
  const sandbox = ports.sandbox?.forTool('Bash')
  const started = await ports.shells.start(command, { cwd, by: { turnId, toolUseId }, sandbox })
  if ('error' in started) throw new Error(`the command could not be started in the background: ${started.error}`)
  return { output: '', exitCode: null, shellId: started.shellId, pid: started.pid }
}

function startedText(shellId: string, pid: number | undefined): string {
  return [
    `Started in the background as shell ${shellId}${pid === undefined ? '' : ` (pid ${pid})`}.`,
    `Read its new output with BashOutput {"shell_id": "${shellId}"}; stop it with KillShell {"shell_id": "${shellId}"}.`,
    'It runs until it exits, is stopped, or the session ends.',
  ].join(' ')
}

/** The output as the model sees it: whole, or its beginning, a marker saying where the rest is, and its end. */
function shownText(output: BashOutput): string {
  if (output.omittedBytes === undefined || output.tail === undefined) return output.output.replace(/\n$/, '')
  const where =
    output.savedPath !== undefined
      ? `the full output (${output.totalBytes ?? 'unknown'} bytes) is in ${output.savedPath} — read parts of it with Read (offset and limit) or search it with Grep`
      : output.saveError !== undefined
        ? `the full output could not be saved (${output.saveError}), so only its beginning and end are shown`
        : 'the result store cannot take streamed output, so the middle was dropped and only the beginning and end are shown'
  const head = output.output.endsWith('\n') ? output.output : `${output.output}\n`
  return `${head}[… ${output.omittedBytes} bytes omitted; ${where}]\n${output.tail.replace(/\n$/, '')}`
}

/**
 * The tool's output, cut to what the model sees: it fits Bash's own result budget, so the budget
 * step does not save a second copy of output that is already in the result store.
 */
function bashOutput(result: ProcessResult): BashOutput {
  const out: BashOutput = { output: result.output, exitCode: result.exitCode }
  if (result.exitSignal !== undefined) out.exitSignal = result.exitSignal
  if (result.cleanup !== undefined) out.note = result.cleanup
  if (result.omittedBytes === 0) return out
  const head = toLineEnd(headOf(result.output, BASH_HEAD_CHARS))
  const tail = fromLineStart(tailOf(result.tail, BASH_TAIL_CHARS))
  out.output = head
  out.tail = tail
  out.totalBytes = result.totalBytes
  out.omittedBytes = result.totalBytes - Buffer.byteLength(head) - Buffer.byteLength(tail)
  if (result.savedPath !== undefined) out.savedPath = result.savedPath
  if (result.saveError !== undefined) out.saveError = result.saveError
  return out
}

/** Why the call is an error (timeout, too much output, abort), or undefined when it ran to its end. */
function failureText(result: ProcessResult, timeoutMs: number): string | undefined {
  const killed = result.cleanup ?? 'its process group was killed'
  if (result.outputLimitBytes !== undefined) {
    const cap = sizeText(result.outputLimitBytes)
    const saved =
      result.savedPath !== undefined
        ? `its first ${cap} are saved in ${result.savedPath}`
        : result.omittedBytes > 0
          ? `its output could not be saved (${result.saveError ?? 'the result store cannot take streamed output'})`
          : 'its output is below'
    return `the command wrote more than ${cap} of output and was stopped; ${saved}. Redirect the output of such a command to a file (command > out.txt 2>&1) and read parts of it with Read or Grep.${lastOutput(result)}`
  }
  const saved = result.savedPath === undefined ? '' : `; its output so far is saved in ${result.savedPath}`
  if (result.failure !== undefined) return `${result.failure}; ${killed}${saved}${lastOutput(result)}`
  if (result.timedOut)
    return `the command timed out after ${timeoutMs / 1000} s; ${killed}${saved}${lastOutput(result)}`
  if (result.aborted) return `the command was stopped before it finished; ${killed}${saved}${lastOutput(result)}`
  return undefined
}

function lastOutput(result: ProcessResult, max = 4000): string {
  const output = result.omittedBytes > 0 ? result.tail : result.output
  if (output === '') return '. It printed nothing'
  const kept = output.length > max || result.omittedBytes > 0 ? `…${tailOf(output, max)}` : output
  return `. Output before it stopped:\n${kept}`
}

function sizeText(bytes: number): string {
  const mib = bytes / (1024 * 1024)
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`
}

/** A head cut mid-line, back to its last whole line (when one ends in its last quarter). */
function toLineEnd(head: string): string {
  const end = head.lastIndexOf('\n')
  return end >= head.length * 0.75 ? head.slice(0, end + 1) : head
}

/** A tail cut mid-line, on from its first whole line (when one starts in its first quarter). */
function fromLineStart(tail: string): string {
  const start = tail.indexOf('\n')
  return start !== -1 && start < tail.length * 0.25 ? tail.slice(start + 1) : tail
}

/** The first `max` characters, not cutting a surrogate pair in two. */
function headOf(text: string, max: number): string {
  if (text.length <= max) return text
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max
  return text.slice(0, end)
}

/** The last `max` characters, not cutting a surrogate pair in two. */
function tailOf(text: string, max: number): string {
  if (text.length <= max) return text
  const start = text.length - max
  return text.slice(/[\uDC00-\uDFFF]/.test(text.charAt(start)) ? start + 1 : start)
}
