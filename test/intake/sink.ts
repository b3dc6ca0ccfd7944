/** A sink that records what an intake hands on, for the intake tests. */
import { readFileSync } from 'node:fs'
import type { IncomingToolUse, IntakeSink } from '../../src/intake/incoming.js'
import { parseSSE } from '../../src/intake/sse.js'

export interface RecordingSink extends IntakeSink {
  readonly uses: IncomingToolUse[]
  readonly ends: Array<{ stopReason: string | null; detail?: string }>
}

export function recordingSink(): RecordingSink {
  const uses: IncomingToolUse[] = []
  const ends: Array<{ stopReason: string | null; detail?: string }> = []
  return {
    uses,
    ends,
    toolUse: (use) => void uses.push(use),
    end: (stopReason, detail) => void ends.push(detail === undefined ? { stopReason } : { stopReason, detail }),
  }
}

/** The payloads of a recorded stream in test/fixtures/streams. */
export const recorded = (name: string): unknown[] =>
  parseSSE(readFileSync(new URL(`../fixtures/streams/${name}`, import.meta.url), 'utf8'))
