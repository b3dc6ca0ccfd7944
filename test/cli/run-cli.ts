/** The built `toolkernel` command, run as a child process, for the CLI tests. */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)
const bin = new URL('../../dist/cli/main.js', import.meta.url).pathname

/** Exit code and output, whether the command succeeds or fails. */
export async function toolkernel(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [bin, ...args])
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}
