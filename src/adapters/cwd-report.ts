/**
 * Where a Bash command left its shell: an EXIT trap set on the command's own first line (so its
 * line numbers do not move) writes `pwd -P` to a temporary file once the script ends, without
 * touching its output or exit status. Fail-safe: a command that replaces its own EXIT trap, is
 * killed, or runs where the file cannot be written reports nothing, and the session's working
 * directory stays (docs/session-context.md §Bash).
 */
import { randomUUID } from 'node:crypto'
import { readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface CwdReport {
  /** The command with the trap in front of it, on the same line. */
  readonly script: string
  /** The directory the shell ended in, once it has ended; undefined when it could not be told. */
  read(): Promise<string | undefined>
}

/** Characters a path may hold to go into the trap's double quotes unescaped. */
const PLAIN_PATH = /^[\w/.,:@+-]+$/

export function withCwdReport(command: string, dir: string = tmpdir()): CwdReport {
  const file = join(dir, `toolkernel-cwd-${randomUUID()}`)
  if (!PLAIN_PATH.test(file)) return { script: command, read: () => Promise.resolve(undefined) }
  return {
    script: `trap '{ pwd -P >| "${file}"; } 2>/dev/null' EXIT; ${command}`,
    read: async () => {
      try {
        const text = await readFile(file, 'utf8')
        const line = text.endsWith('\n') ? text.slice(0, -1) : text
        return line.startsWith('/') && !line.includes('\n') ? line : undefined
      } catch {
        return undefined
      } finally {
        await rm(file, { force: true }).catch(() => undefined)
      }
    },
  }
}
