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

/** Waits up to 3 s for `pid` to stop running; true when it has. */
export async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 300 && running(pid); i++) await new Promise((r) => setTimeout(r, 10))
  return !running(pid)
}
