/**
 * A command's output as progress reports, coalesced: at most one report per interval or per size,
 * whichever comes first, and a bounded number per call. A command that writes 100 MB would
 * otherwise send thousands of events (each one logged, kept by the call and sent to the app).
 * Progress is for a person watching; the result carries the output.
 */
import { StringDecoder } from 'node:string_decoder'

/** Longest time output waits before it is reported. */
export const PROGRESS_INTERVAL_MS = 100
/** Buffered characters that are reported at once, without waiting for the interval. */
export const PROGRESS_CHUNK_CHARS = 8 * 1024
/** Reports one call sends at most, the closing note included. */
export const PROGRESS_MAX_REPORTS = 200

const NOTE =
  '[… further output is not shown as progress; the result will have its beginning and end, and where the full output is saved]'

export interface ProgressReporter {
  /** Output as it arrives. */
  push(chunk: Buffer): void
  /** Reports what is buffered now (the command is ending, or was stopped). */
  flush(): void
  /** The command has ended: report what is left; later output is ignored. */
  end(): void
}

/** Coalesces output into at most {@link PROGRESS_MAX_REPORTS} calls of `report`. */
export function createProgressReporter(report: (text: string) => void): ProgressReporter {
  const decoder = new StringDecoder('utf8')
  let parts: string[] = []
  let size = 0
  let reports = 0
  let done = false
  let timer: NodeJS.Timeout | undefined

  const flush = (): void => {
    clearTimeout(timer)
    timer = undefined
    if (size === 0 || done) return
    const text = parts.join('')
    parts = []
    size = 0
    reports++
    if (reports === PROGRESS_MAX_REPORTS) {
      done = true
      report(NOTE)
      return
    }
    report(text.length <= PROGRESS_CHUNK_CHARS ? text : shortened(text))
  }
  const add = (text: string): void => {
    if (done || text === '') return
    parts.push(text)
    size += text.length
    if (size >= PROGRESS_CHUNK_CHARS) flush()
    // unref: a pending report never keeps the process alive.
    else timer ??= setTimeout(flush, PROGRESS_INTERVAL_MS).unref()
  }
  return {
    push: (chunk) => {
      if (!done) add(decoder.write(chunk))
    },
    flush,
    end: () => {
      add(decoder.end())
      flush()
      done = true
    },
  }
}

/** A burst larger than one report: its end is what a person watching wants to see. */
function shortened(text: string): string {
  const kept = text.slice(-PROGRESS_CHUNK_CHARS)
  return `[… ${text.length - kept.length} characters not shown as progress]\n${kept}`
}
