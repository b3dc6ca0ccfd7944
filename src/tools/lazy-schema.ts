/** A schema built on first use: defers zod's construction and first-parse cost until a tool is called. */
export interface LazySchema<S> {
  readonly lazy: true
  get(): S
}

/**
 * Wraps a schema factory so the schema is built once, on first use.
 *
 * @example
 * const inputSchema = lazySchema(() => z.strictObject({ path: z.string().describe('Absolute path') }))
 */
export function lazySchema<S>(factory: () => S): LazySchema<S> {
  let schema: S | undefined
  let built = false
  return {
    lazy: true,
    get() {
      if (!built) {
        schema = factory()
        built = true
      }
      return schema as S
    },
  }
}

export function isLazySchema(value: unknown): value is LazySchema<unknown> {
  return typeof value === 'object' && value !== null && (value as { lazy?: unknown }).lazy === true
}
