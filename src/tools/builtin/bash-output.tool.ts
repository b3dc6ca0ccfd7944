import { z } from 'zod'
import type { ShellRead } from '../../ports/index.js'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import { lineFilter } from './line-filter.js'

export interface BashOutputInput {
  shell_id: string
  filter?: string | undefined
}

const inputSchema = lazySchema(() =>
  z.strictObject({
    shell_id: z.string().min(1).describe('The id Bash gave when it started the command in the background'),
    filter: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Only lines matching this regular expression (or containing this text) are returned; the others are discarded',
      ),
  }),
)

/** BashOutput: the new output of a background shell Bash started, and whether it still runs. */
export const BashOutput = buildTool<BashOutputInput, ShellRead, unknown, 'BashOutput'>({
  name: 'BashOutput',
  searchHint: 'background shell output read dev server log',
  category: 'shell',
  description: () => 'Reads the new output of a background shell.',
  prompt: () =>
    [
      'Returns what a command started with Bash run_in_background printed since the last BashOutput of that shell (stdout and stderr together), and whether it is still running or its exit code once it has exited. It does not wait: call it again later for more.',
      'filter keeps only the lines that match a regular expression (a plain text is a substring); the other lines are discarded for good. Only simple expressions are taken: no quantifier after a group, no backreference or lookaround, at most one unbounded quantifier.',
      'Unread output is kept up to its first 8,000 and last 20,000 characters; what came between is dropped, and the result says how much. Only shells started in this session can be read.',
    ].join(' '),
  inputSchema,
  maxResultSizeChars: 40_000,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  interruptBehavior: () => 'cancel',
  validateInput: (input) => {
    if (input.filter === undefined) return { result: true }
    const filter = lineFilter(input.filter)
    return filter.ok ? { result: true } : { result: false, message: filter.message }
  },
  userFacingName: () => 'BashOutput',
  call({ shell_id, filter }, { ports, turnId, toolUseId }) {
    const shells = ports.shells
    if (shells === undefined) throw new Error('there are no background shells here (the kernel has none)')
    const test = filter === undefined ? undefined : lineFilter(filter)
    if (test !== undefined && !test.ok) throw new Error(test.message)
    const read = shells.read(shell_id, {
      by: { turnId, toolUseId },
      ...(test === undefined ? {} : { filter: test.test }),
    })
    if (read === undefined) throw new Error(unknownShell(shell_id, shells.ids()))
    return Promise.resolve(read)
  },
  mapToolResultToToolResultBlockParam(read, toolUseId) {
    return { type: 'tool_result', tool_use_id: toolUseId, content: readText(read) }
  },
})

/** The error for an id this kernel never gave out. */
export function unknownShell(shellId: string, known: readonly string[]): string {
  const list =
    known.length === 0 ? 'no background shell was started in this session' : `its shells are ${known.join(', ')}`
  return `no background shell ${shellId} in this session (${list}); Bash with run_in_background gives the id`
}

function readText(read: ShellRead): string {
  const status = read.running
    ? `[shell ${read.shellId} is still running]`
    : `[shell ${read.shellId} has exited: ${read.exitSignal !== null ? `killed by ${read.exitSignal}` : `exit code ${read.exitCode ?? 'unknown'}`}]`
  const filtered =
    read.filteredLines > 0 ? `\n[${read.filteredLines} lines did not match the filter and were discarded]` : ''
  const body =
    read.droppedChars === 0
      ? read.head
      : `${withNewline(read.head)}[… ${read.droppedChars} characters of output were dropped (only the first and last part of unread output is kept) …]\n${read.tail}`
  const text = body === '' ? '(no new output)' : body.replace(/\n$/, '')
  return `${text}\n\n${status}${filtered}`
}

function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`
}
