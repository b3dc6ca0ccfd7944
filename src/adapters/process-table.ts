/**
 * Reading Linux's /proc to find the processes a command left behind: its descendants that left its
 * process group (`setsid`), the members still in its group, and whoever holds its output sockets
 * open. Elsewhere (no /proc) every function finds nothing, and callers say so instead of guessing.
 * All reads are synchronous: they run only when a command is being ended or has left something
 * behind, and take a few milliseconds.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

/** One process as /proc/<pid>/stat describes it. */
export interface ProcessInfo {
  readonly pid: number
  readonly ppid: number
  readonly pgid: number
  /** One-letter state; `Z` is a zombie (already dead, not yet reaped). */
  readonly state: string
  /** Start time in clock ticks since boot: with the pid, it names a process even after pid reuse. */
  readonly start: number
}

/** The process `pid`, or undefined when it is gone (or there is no /proc). */
export function processInfo(pid: number): ProcessInfo | undefined {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  return parseStat(pid, stat)
}

/** The process described by the text of its /proc/<pid>/stat (read here, or by the spawner's helper). */
export function parseStat(pid: number, stat: string): ProcessInfo | undefined {
  // The command name sits in parentheses and may itself contain spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const [state, ppid, pgid] = fields
  const start = fields[19]
  if (state === undefined || ppid === undefined || pgid === undefined || start === undefined) return undefined
  return { pid, ppid: Number(ppid), pgid: Number(pgid), state, start: Number(start) }
}

/** Every live (non-zombie) process. */
export function allProcesses(): ProcessInfo[] {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return []
  }
  const found: ProcessInfo[] = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    const info = processInfo(Number(entry))
    if (info !== undefined && info.state !== 'Z') found.push(info)
  }
  return found
}

/** The live descendants of `root`, found by parent links (they must still be attached to the tree). */
export function descendantsOf(root: number): ProcessInfo[] {
  const children = new Map<number, ProcessInfo[]>()
  for (const info of allProcesses()) {
    const list = children.get(info.ppid)
    if (list === undefined) children.set(info.ppid, [info])
    else list.push(info)
  }
  const found: ProcessInfo[] = []
  const queue = [root]
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of children.get(pid) ?? []) {
      found.push(child)
      queue.push(child.pid)
    }
  }
  return found
}

/** The live members of process group `pgid`. */
export function groupMembers(pgid: number): ProcessInfo[] {
  return allProcesses().filter((info) => info.pgid === pgid)
}

/** What file descriptor `fd` of process `pid` refers to (`socket:[123]`, `pipe:[45]`, a path). */
export function descriptorTarget(pid: number, fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`)
  } catch {
    return undefined
  }
}

/** The processes (other than `except`) with a file descriptor on any of `targets`. */
export function holdersOf(targets: ReadonlySet<string>, except: number): ProcessInfo[] {
  if (targets.size === 0) return []
  return allProcesses().filter((info) => {
    if (info.pid === except) return false
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${info.pid}/fd`)
    } catch {
      return false
    }
    return fds.some((fd) => {
      const target = descriptorTarget(info.pid, Number(fd))
      return target !== undefined && targets.has(target)
    })
  })
}

/** Sends `signal` to the process if it is still the one that was seen (same pid and start time). */
export function signalProcess(info: ProcessInfo, signal: NodeJS.Signals): boolean {
  if (processInfo(info.pid)?.start !== info.start) return false
  try {
    process.kill(info.pid, signal)
    return true
  } catch {
    return false
  }
}

/** Sends `signal` to every member of group `pgid`; false when the group is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  // A group that is gone is the usual answer (every command that left nothing behind is probed once
  // after it exits): the ESRCH error is built without a stack trace, which no one reads.
  return withoutStackTraces(() => {
    try {
      process.kill(-pgid, signal)
      return true
    } catch {
      return false
    }
  })
}

/** Runs `run` with `Error.stackTraceLimit` at 0, unless the limit cannot be set (frozen intrinsics). */
function withoutStackTraces<T>(run: () => T): T {
  const limit = Error.stackTraceLimit
  try {
    Error.stackTraceLimit = 0
  } catch {
    return run()
  }
  try {
    return run()
  } finally {
    Error.stackTraceLimit = limit
  }
}
