/**
 * A command's output in bounded memory: its first {@link HEAD_BYTES} and last {@link TAIL_BYTES}
 * are kept, the total is counted, and once it outgrows what is kept, the whole output streams to
 * a file (the kernel's result store) as it arrives. Past a hard cap the command is stopped.
 */
import { StringDecoder } from 'node:string_decoder'
import type { ResultWriter } from '../ports/index.js'

/** Bytes of the beginning of the output kept in memory. */
export const HEAD_BYTES = 16 * 1024
/** Bytes of the end of the output kept in memory (errors sit at the end). */
export const TAIL_BYTES = 48 * 1024
/** Output past which a command is stopped, unless the runner is given another cap. */
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024

export interface CaptureOptions {
  /** Opens where the full output goes; absent: only the head and tail are kept. */
  readonly open?: (() => Promise<ResultWriter>) | undefined
  readonly maxBytes: number
  /** The output passed `maxBytes`: stop the command. Called once. */
  onLimit(): void
  /** Stop and start reading the output, while the file opens. */
  pause(): void
  resume(): void
}

/** The output as it was kept. */
export interface CapturedOutput {
  /** All of it when `omittedBytes` is 0; otherwise its beginning. */
  head: string
  /** Its end when `omittedBytes` > 0, else ''. */
  tail: string
  totalBytes: number
  omittedBytes: number
  savedPath?: string
  saveError?: string
  /** The output passed the cap and was cut there. */
  overLimit: boolean
}

/**
 * A writer that can ask to wait (a proposed extension of the port): `write` answers false when its
 * buffer is full, and `drained` resolves when it has room. Without it, a command writing faster
 * than the disk takes it grows the writer's buffer (up to the output cap).
 */
type PacedWriter = ResultWriter & { drained?: () => Promise<void> }

type Sink =
  | { state: 'memory' }
  | { state: 'opening'; pending: Buffer[]; ready: Promise<void> }
  | { state: 'writing'; writer: ResultWriter }
  | { state: 'none'; error?: string }

export class OutputCapture {
  private readonly head: Buffer[] = []
  private headBytes = 0
  private readonly tail: Buffer[] = []
  private tailBytes = 0
  private total = 0
  private overLimit = false
  private sink: Sink = { state: 'memory' }
  private readonly decoder = new StringDecoder('utf8')
  /** Reasons the output is not being read (the file is opening, the writer is full). */
  private holds = 0

  constructor(private readonly options: CaptureOptions) {}

  push(data: Buffer): void {
    if (this.overLimit) return
    let chunk = data
    if (this.total + chunk.length > this.options.maxBytes) {
      chunk = chunk.subarray(0, this.options.maxBytes - this.total)
      this.overLimit = true
    }
    if (this.sink.state === 'memory' && this.total + chunk.length > HEAD_BYTES + TAIL_BYTES) this.openSink(chunk)
    else this.toSink(chunk)
    this.total += chunk.length
    this.keep(chunk)
    if (this.overLimit) this.options.onLimit()
  }

  private keep(chunk: Buffer): void {
    const room = HEAD_BYTES - this.headBytes
    if (room > 0) {
      const head = chunk.subarray(0, room)
      this.head.push(head)
      this.headBytes += head.length
      chunk = chunk.subarray(head.length)
    }
    if (chunk.length === 0) return
    this.tail.push(chunk)
    this.tailBytes += chunk.length
    // Whole chunks drop off the front while the rest still covers TAIL_BYTES.
    let first = this.tail[0]
    while (first !== undefined && this.tailBytes - first.length >= TAIL_BYTES) {
      this.tail.shift()
      this.tailBytes -= first.length
      first = this.tail[0]
    }
  }

  /** Everything so far is still in memory: it goes first, then the output as it comes. */
  private openSink(chunk: Buffer): void {
    const open = this.options.open
    if (open === undefined) {
      this.sink = { state: 'none' }
      return
    }
    const pending = [...this.head, ...this.tail, chunk]
    const ready = open().then(
      (writer) => {
        this.sink = { state: 'writing', writer }
        for (const buffer of pending) this.write(writer, buffer)
      },
      (error: unknown) => {
        this.sink = { state: 'none', error: error instanceof Error ? error.message : String(error) }
      },
    )
    this.sink = { state: 'opening', pending, ready }
    this.hold(ready)
  }

  private toSink(chunk: Buffer): void {
    if (this.sink.state === 'writing') this.write(this.sink.writer, chunk)
    else if (this.sink.state === 'opening') this.sink.pending.push(chunk)
  }

  private write(writer: PacedWriter, chunk: Buffer): void {
    const accepted = writer.write(this.decoder.write(chunk)) as boolean | void
    if (accepted === false && writer.drained !== undefined) this.hold(writer.drained())
  }

  /** Stops reading the output until `until` settles (the command blocks when its pipe fills). */
  private hold(until: Promise<unknown>): void {
    if (this.holds++ === 0) this.options.pause()
    const release = (): void => {
      if (--this.holds === 0) this.options.resume()
    }
    until.then(release, release)
  }

  /** The output as kept, once the file (if any) is complete. */
  async finish(): Promise<CapturedOutput> {
    if (this.sink.state === 'opening') await this.sink.ready
    const captured = this.kept()
    const sink = this.sink
    if (sink.state === 'writing') {
      try {
        const rest = this.decoder.end()
        if (rest !== '') sink.writer.write(rest)
        await sink.writer.close()
        captured.savedPath = sink.writer.path
      } catch (error) {
        captured.saveError = error instanceof Error ? error.message : String(error)
      }
    } else if (sink.state === 'none' && sink.error !== undefined) captured.saveError = sink.error
    return captured
  }

  private kept(): CapturedOutput {
    const base = { totalBytes: this.total, overLimit: this.overLimit }
    if (this.total <= HEAD_BYTES + TAIL_BYTES)
      return { ...base, head: Buffer.concat([...this.head, ...this.tail]).toString('utf8'), tail: '', omittedBytes: 0 }
    const head = new StringDecoder('utf8').write(Buffer.concat(this.head))
    const tail = fromCharBoundary(Buffer.concat(this.tail).subarray(-TAIL_BYTES))
    const omittedBytes = this.total - Buffer.byteLength(head) - Buffer.byteLength(tail)
    return { ...base, head, tail, omittedBytes }
  }
}

/** The text of `bytes`, starting at the first whole UTF-8 character (a cut may fall inside one). */
function fromCharBoundary(bytes: Buffer): string {
  let start = 0
  while (start < 3 && start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++
  return bytes.subarray(start).toString('utf8')
}
