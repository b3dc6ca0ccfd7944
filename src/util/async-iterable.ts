import type { Observable } from 'rxjs'

/**
 * An Observable as an async iterable: values are buffered until read, so a slow reader misses
 * nothing; an error is thrown at the reader; breaking out of the loop unsubscribes.
 */
export function toAsyncIterable<T>(source: Observable<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      const buffer: T[] = []
      let done = false
      let failure: { error: unknown } | undefined
      let wake: (() => void) | undefined
      const notify = (): void => {
        wake?.()
        wake = undefined
      }
      const subscription = source.subscribe({
        next: (value) => {
          buffer.push(value)
          notify()
        },
        error: (error: unknown) => {
          failure = { error }
          notify()
        },
        complete: () => {
          done = true
          notify()
        },
      })
      return {
        async next(): Promise<IteratorResult<T>> {
          for (;;) {
            if (buffer.length > 0) return { value: buffer.shift() as T, done: false }
            if (failure !== undefined) throw failure.error
            if (done) return { value: undefined, done: true }
            await new Promise<void>((resolve) => (wake = resolve))
          }
        },
        async return(): Promise<IteratorResult<T>> {
          subscription.unsubscribe()
          done = true
          return { value: undefined, done: true }
        },
      }
    },
  }
}
