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
const PROCESS_WAIT_MS = 20_000

/** Polls `done` every 10 ms (no fixed sleep) until it holds or PROCESS_WAIT_MS pass; whether it holds. */
export async function pollUntil(done: () => boolean): Promise<boolean> {
  for (const end = Date.now() + PROCESS_WAIT_MS; !done() && Date.now() < end;)
    await new Promise((r) => setTimeout(r, 10))
  return done()
}

/** Polls until `pid` stops running, up to PROCESS_WAIT_MS; true when it has. */
export const gone = (pid: number): Promise<boolean> => pollUntil(() => !running(pid))
