/** Watching real processes from tests: whether a pid still runs (a zombie does not), and waiting for one to go. */
import { readFileSync } from 'node:fs'

/** Whether `pid` is alive and not a zombie (its state in /proc/<pid>/stat is not Z). */
const running = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/**
 * How long a check waits for a process to go: long enough for a loaded 2-core machine (a killed
 * process is usually gone within milliseconds; this bound is reached only when the check fails).
 */
export const PROCESS_WAIT_MS = 20_000

/** Polls (no fixed sleep) until `pid` stops running, up to PROCESS_WAIT_MS; true when it has. */
export async function gone(pid: number): Promise<boolean> {
  for (const end = Date.now() + PROCESS_WAIT_MS; running(pid) && Date.now() < end;)
    await new Promise((r) => setTimeout(r, 10))
  return !running(pid)
}
