import { z } from 'zod'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import { readOnlyVerdict } from './bash-safety.js'

export const BASH_DEFAULT_TIMEOUT_MS = 120_000
export const BASH_MAX_TIMEOUT_MS = 600_000

export interface BashInput {
  command: string
  timeout?: number | undefined
  description?: string | undefined
}

export interface BashOutput {
  output: string
  exitCode: number | null
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
  }),
)

const readOnly = (input: { command: string }) => readOnlyVerdict(input.command).readOnly

/** Bash: runs a shell command in the kernel's working directory. */
export const Bash = buildTool<BashInput, BashOutput>({
  name: 'Bash',
  searchHint: 'shell command run execute terminal script',
  category: 'shell',
  description: () => 'Runs a shell command.',
  prompt: () =>
    [
      "Runs a bash command in the project's working directory and returns its output (stdout and stderr together, in the order written) and, when it is not 0, its exit code.",
      'Use it for builds, tests, git and other programs. To read, find or search files prefer Read, Glob and Grep: they are faster and their output is made for you.',
      'A non-zero exit code is not a failure of the tool: it is the command telling you something (grep finding nothing exits 1). A command that times out or cannot start is an error.',
      `The default timeout is ${BASH_DEFAULT_TIMEOUT_MS / 1000} s (at most ${BASH_MAX_TIMEOUT_MS / 1000} s); on timeout the command and every process it started are killed. There is no stdin: do not run interactive programs.`,
      'Long output is saved to a file and you get its beginning and end with the path.',
    ].join(' '),
  inputSchema,
  maxResultSizeChars: 30_000,
  isReadOnly: readOnly,
  isConcurrencySafe: readOnly,
  isDestructive: (input) => !readOnly(input),
  interruptBehavior: () => 'cancel',
  // Read-only commands run without asking; anything else asks unless a rule or mode allows it.
  checkPermissions: (input) =>
    readOnly(input)
      ? { behavior: 'allow' }
      : {
          behavior: 'ask',
          message: `the command may change things: ${input.command.length > 200 ? `${input.command.slice(0, 200)}…` : input.command}`,
        },
  cascadesOnFailure: true,
  userFacingName: (input) => (input?.description !== undefined ? `Bash (${input.description})` : 'Bash'),
  async call({ command, timeout }, { cwd, signal, ports, onProgress }): Promise<BashOutput> {
    const timeoutMs = timeout ?? BASH_DEFAULT_TIMEOUT_MS
    const result = await ports.processes.run(command, { cwd, timeoutMs, signal, onOutput: onProgress })
    if (result.startError !== undefined) throw new Error(`the command could not be started: ${result.startError}`)
    if (result.timedOut) {
      throw new Error(
        `the command timed out after ${timeoutMs / 1000} s and was killed, with every process it started${tail(result.output)}`,
      )
    }
    if (result.aborted) throw new Error(`the command was stopped before it finished${tail(result.output)}`)
    return { output: result.output, exitCode: result.exitCode }
  },
  mapToolResultToToolResultBlockParam({ output, exitCode }, toolUseId) {
    const text = output.replace(/\n$/, '')
    const status = exitCode === 0 ? '' : `${text === '' ? '' : '\n\n'}exit code ${exitCode ?? 'unknown'}`
    return { type: 'tool_result', tool_use_id: toolUseId, content: text === '' && status === '' ? '' : text + status }
  },
})

function tail(output: string, max = 4000): string {
  if (output === '') return '; it printed nothing'
  const kept = output.length > max ? `…${output.slice(-max)}` : output
  return `. Output before it stopped:\n${kept}`
}
