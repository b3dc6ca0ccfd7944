/**
 * What the loopback model API replays: scripted turns, provider-neutral. Each provider module
 * renders a turn in its own wire format (a whole response, or a stream split the way the APIs
 * split it), or a recorded stream from test/fixtures/streams/ is sent as it is.
 */
import { readFileSync } from 'node:fs'

/** One tool call the scripted model makes. */
export interface ScriptedCall {
  name: string
  input: Record<string, unknown>
  /**
   * The arguments text sent in place of `input` as JSON — text that is not JSON, a model's
   * mistake. OpenAI formats only (Anthropic's `input` is an object).
   */
  arguments?: string
}

/** Why the scripted model stops, provider-neutral; each provider maps it onto its own words. */
export type ScriptedStop = 'tool_use' | 'end_turn' | 'max_tokens' | 'refusal'

/** One model turn: text, then calls; or a recorded stream sent verbatim to a streaming request. */
export interface ScriptedTurn {
  text?: string
  calls?: readonly ScriptedCall[]
  /** Default: `tool_use` when there are calls, else `end_turn`. */
  stop?: ScriptedStop
  /** A file in test/fixtures/streams/: sent as it is (after `{{NAME}}` substitution) to a streaming request. */
  fixture?: string
  /** Cut the stream after this many events and drop the connection (a network failure mid-stream). */
  dropAfter?: number
  /**
   * A streamed response holds its end — the events that close the message (Anthropic's
   * `message_delta`, the chunk with Chat's `finish_reason`, Responses' `response.completed`):
   * once what comes before is written out, this is called, and the end is sent when what it
   * returns settles. A test sees what the client did with the calls before the stream ended.
   */
  holdEnd?: () => PromiseLike<unknown>
}

/** The arguments text of a call: its own text when the script gives one, else its input as JSON. */
export function argumentsOf(call: ScriptedCall): string {
  return call.arguments ?? JSON.stringify(call.input)
}

export function stopOf(turn: ScriptedTurn): ScriptedStop {
  return turn.stop ?? ((turn.calls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn')
}

/**
 * Splits JSON text into fragments the way the APIs stream tool input: uneven pieces, cut inside
 * strings and keys. Deterministic, so a failing test replays the same stream.
 */
export function fragments(json: string): string[] {
  const sizes = [3, 1, 7, 4, 11, 2, 5]
  const out: string[] = []
  let at = 0
  for (let i = 0; at < json.length; i++) {
    const size = sizes[i % sizes.length] ?? 4
    out.push(json.slice(at, at + size))
    at += size
  }
  return out
}

/** Deterministic ids in each provider's alphabet, so logs and assertions are stable. */
export class Ids {
  #n = 0
  next(prefix: string, length = 24): string {
    const n = String(++this.#n)
    return `${prefix}${'0'.repeat(Math.max(0, length - n.length))}${n}`
  }
}

const FIXTURES = new URL('../fixtures/streams/', import.meta.url)

/**
 * A recorded stream's body with `{{NAME}}` replaced by `vars[NAME]`, escaped for where the token
 * sits: inside a JSON string that is itself inside a JSON string (tool input fragments).
 */
export function fixtureBody(name: string, vars: Readonly<Record<string, string>>): string {
  const body = readFileSync(new URL(name, FIXTURES), 'utf8')
  return body.replace(/\{\{([A-Z_]+)\}\}/g, (token, key: string) => {
    const value = vars[key]
    if (value === undefined) throw new Error(`fixture ${name} uses ${token}, but no value was given for ${key}`)
    // Twice JSON-escaped, without the quotes each escape adds.
    return JSON.stringify(JSON.stringify(value).slice(1, -1)).slice(1, -1)
  })
}

/** A body's SSE blocks (separated by blank lines), for sending one at a time or cutting short. */
export function sseBlocks(body: string): string[] {
  return body
    .split(/\r?\n\r?\n/)
    .map((block) => block.trim())
    .filter((block) => block !== '')
}
