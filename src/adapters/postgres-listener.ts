/**
 * LISTEN on a connection of its own, as a wake-up only: the payload is a position, never an
 * event, and readers always re-read. A lost connection is reconnected with backoff, and every
 * (re)connect wakes the readers, because notifications sent while it was down are gone.
 */
import pg from 'pg'

export const CHANNEL = 'toolkernel_events'

export class PostgresListener {
  readonly #wakes = new Set<() => void>()
  #client: pg.Client | undefined
  #closed = false
  #connecting: Promise<void> | undefined
  #backoff = 50

  constructor(private readonly config: pg.ClientConfig) {}

  /** Registers a wake-up (connecting on first use); returns its removal. */
  onWake(wake: () => void): () => void {
    this.#wakes.add(wake)
    if (this.#client === undefined && this.#connecting === undefined) this.#connect()
    return () => void this.#wakes.delete(wake)
  }

  #wakeAll(): void {
    for (const wake of this.#wakes) wake()
  }

  #connect(): void {
    if (this.#closed) return
    const client = new pg.Client(this.config)
    let dead = false
    const lost = (): void => {
      if (dead) return
      dead = true
      if (this.#client === client) this.#client = undefined
      client.removeAllListeners()
      client.on('error', () => undefined)
      void client.end().catch(() => undefined)
      if (this.#closed) return
      setTimeout(() => this.#connect(), this.#backoff).unref()
      this.#backoff = Math.min(this.#backoff * 2, 2000)
    }
    client.on('error', lost)
    client.on('end', lost)
    client.on('notification', () => this.#wakeAll())
    this.#connecting = client
      .connect()
      .then(() => client.query(`LISTEN ${CHANNEL}`))
      .then(
        () => {
          this.#connecting = undefined
          if (this.#closed) return void client.end().catch(() => undefined)
          this.#client = client
          this.#backoff = 50
          this.#wakeAll()
        },
        () => {
          this.#connecting = undefined
          lost()
        },
      )
  }

  async close(): Promise<void> {
    this.#closed = true
    this.#wakes.clear()
    await this.#connecting?.catch(() => undefined)
    const client = this.#client
    this.#client = undefined
    if (client !== undefined) {
      client.removeAllListeners()
      client.on('error', () => undefined)
      await client.end().catch(() => undefined)
    }
  }
}
