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

/** What both stream intakes share: ending the message hands on what is still open, then ends. */
export abstract class StreamIntake {
  protected ended = false

  constructor(protected readonly sink: IntakeSink) {}

  /** Ends the message (its stop event, an error event, or the app saying so). */
  end(stopReason: string | null, detail?: string): void {
    if (this.ended) return
    this.close(stopReason, detail)
    this.sink.end(stopReason, detail)
  }

  /** Hands on the calls still open, and takes no more events. */
  abstract close(stopReason: string | null, detail?: string): void
}
