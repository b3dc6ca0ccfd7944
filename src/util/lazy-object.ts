/**
 * A module-level object built on first use: a Proxy that builds it when any property is read (or
 * asked for) and forwards everything to it from then on. For exports that cost at import what
 * most programs never use (the event union, decision 171); the value behaves as the object
 * itself — methods, getters, `instanceof`, spreading its keys.
 *
 * @example
 * export const Schema = lazyObject(() => z.discriminatedUnion('type', members()))
 */
export function lazyObject<T extends object>(build: () => T): T {
  let value: T | undefined
  const real = (): T => (value ??= build())
  return new Proxy({} as T, {
    get: (_target, key) => Reflect.get(real(), key),
    set: (_target, key, next) => Reflect.set(real(), key, next),
    has: (_target, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    // Reported configurable: the Proxy's own (empty) target holds none of these properties.
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key)
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true }
    },
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    deleteProperty: (_target, key) => Reflect.deleteProperty(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  })
}
