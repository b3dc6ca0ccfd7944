/** What stream intake hands the turn: complete tool calls, and the end of the message. */

export interface IncomingToolUse {
  id: string
  name: string
  input: unknown
  /** Why the input could not be read; the call answers with an error saying so. */
  inputError?: string
  /** Position among the message's tool calls: results are emitted in this order. */
  index: number
}

export interface IntakeSink {
  toolUse(block: IncomingToolUse): void
  /** The message ended; `detail` explains an error end (a stream `error` event). */
  end(stopReason: string | null, detail?: string): void
}
