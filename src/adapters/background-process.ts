/**
 * A command running in the background (Bash `run_in_background`): started through the shared
 * spawner (spawn-process.ts: its own process group, one kill policy), with no deadline, and its
 * output kept in bounded memory until it is read — a chatty server cannot grow the kernel's
 * memory: past the bound, the middle of what was not yet read is dropped and counted.
 */
import type { Sandbox } from '../ports/sandbox.port.js'
import type { BackgroundExit, BackgroundProcess, UnreadOutput } from '../ports/index.js'
import { spawnProcess } from './spawn-process.js'
import { StringDecoder } from 'node:string_decoder'

/** Characters of the beginning of unread output kept (as Bash shows a long output's head). */
export const UNREAD_HEAD_CHARS = 8_000
/** Characters of the end of unread output kept (as Bash shows a long output's tail). */
export const UNREAD_TAIL_CHARS = 20_000

/**
 * Output not yet read: its first {@link UNREAD_HEAD_CHARS} and last {@link UNREAD_TAIL_CHARS}
 * characters, and a count of what fell between. Memory stays within the two bounds (plus the
 * chunk being added).
 */
export class UnreadBuffer {
  private head = ''
  private tail: string[] = []
  private tailChars = 0
  private dropped = 0

  constructor(
    private readonly headChars = UNREAD_HEAD_CHARS,
    private readonly tailLimit = UNREAD_TAIL_CHARS,
  ) {}

  push(text: string): void {
    if (this.dropped === 0 && this.tail.length === 0 && this.head.length < this.headChars) {
      const room = this.headChars - this.head.length
      const cut = splitPoint(text, room)
      this.head += text.slice(0, cut)
      text = text.slice(cut)
    }
    if (text === '') return
    this.tail.push(text)
    this.tailChars += text.length
    let first = this.tail[0]
    while (first !== undefined && this.tailChars - first.length >= this.tailLimit) {
      this.tail.shift()
      this.tailChars -= first.length
      this.dropped += first.length
      first = this.tail[0]
    }
    if (first !== undefined && this.tailChars > this.tailLimit) {
      const cut = splitPoint(first, this.tailChars - this.tailLimit)
      this.tail[0] = first.slice(cut)
      this.tailChars -= cut
      this.dropped += cut
    }
  }

  /** What is unread, then forgets it. */
  take(): UnreadOutput {
    const tail = this.tail.join('')
    const out: UnreadOutput =
      this.dropped === 0
        ? { head: this.head + tail, tail: '', droppedChars: 0 }
        : { head: this.head, tail, droppedChars: this.dropped }
    this.head = ''
    this.tail = []
    this.tailChars = 0
    this.dropped = 0
    return out
  }
}

/** `at`, moved one on when it would split a surrogate pair. */
function splitPoint(text: string, at: number): number {
  if (at <= 0 || at >= text.length) return Math.max(0, Math.min(at, text.length))
  return /[\uD800-\uDBFF]/.test(text.charAt(at - 1)) ? at + 1 : at
}

/** Starts `command` with bash in `cwd`, in the background. */
export function startBackgroundProcess(
  command: string,
  { cwd, env, sandbox }: { cwd: string; env: Record<string, string>; sandbox?: Sandbox | undefined },
): BackgroundProcess {
  const unread = new UnreadBuffer()
  const decoder = new StringDecoder('utf8')
  const onChunk = (chunk: Buffer): void => unread.push(decoder.write(chunk))
  const stopper = new AbortController()
  const child = spawnProcess({
    script: command,
    mergeStderr: true,
    cwd,
    env,
    timeoutMs: Infinity,
    signal: stopper.signal,
    // Under the OS sandbox like any Bash command (docs/sandbox.md); one that cannot start fails closed.
    ...(sandbox === undefined ? {} : { sandbox }),
    onStdout: onChunk,
    onStderr: onChunk,
  })
  let exit: BackgroundExit | undefined
  const done = child.done.then((outcome) => {
    const rest = decoder.end()
    if (rest !== '') unread.push(rest)
    exit = { exitCode: outcome.exitCode, exitSignal: outcome.exitSignal }
    if (outcome.startError !== undefined) exit.startError = outcome.startError
    return exit
  })
  return {
    pid: child.pid,
    take: () => unread.take(),
    // Aborting is the spawner's tree kill: SIGTERM the group (and what left it), SIGKILL after the grace.
    stop: () => stopper.abort(),
    done,
    get exit() {
      return exit
    },
  }
}
