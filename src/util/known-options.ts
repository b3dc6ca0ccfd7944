/**
 * One check for every public function that takes an options object: a key it does not know is
 * refused with the ones it takes, never ignored (decision 118). An option misspelled or taken
 * from another library's API would otherwise change nothing and say nothing.
 */

/**
 * Throws a TypeError naming `where`, the unknown key(s) and the known ones. `undefined` and a
 * non-object pass (the caller's own checks say what the value must be).
 *
 * @example
 * checkKnownOptions('kernel.apiTools', { provider: 'openai' }, ['format'])
 * // TypeError: kernel.apiTools: unknown option "provider" (it takes: format)
 */
export function checkKnownOptions(where: string, options: unknown, known: readonly string[]): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return
  const unknown = Object.keys(options).filter((key) => !known.includes(key))
  if (unknown.length === 0) return
  const names = unknown.map((key) => `"${key}"`).join(', ')
  throw new TypeError(
    `${where}: unknown option${unknown.length > 1 ? 's' : ''} ${names} (it takes: ${known.length > 0 ? known.join(', ') : 'none'})`,
  )
}

/** Refuses an options argument that is not an object (a string where `{ … }` goes). */
export function checkOptionsObject(where: string, options: unknown, known: readonly string[]): void {
  if (options === undefined) return
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new TypeError(
      `${where}: options must be an object { ${known.join(', ')} }, got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : JSON.stringify(options)}`,
    )
  checkKnownOptions(where, options, known)
}

/** `L` when it names every key of `T`; else a type that says which are missing. */
type Exhaustive<T, L extends readonly PropertyKey[]> = [Exclude<keyof T, L[number]>] extends [never]
  ? L
  : { missing: Exclude<keyof T, L[number]> }

/**
 * The option names of an options interface, checked at compile time to be all of its keys: an
 * option added to the interface and not here is a type error naming it (so it cannot be refused
 * as unknown by mistake).
 *
 * @example
 * const NAMES = optionNames<JsonlLogOptions>()('fsync', 'onProgress', 'retainTurns')
 */
export function optionNames<T>() {
  return <const L extends ReadonlyArray<keyof T & string>>(...names: L & Exhaustive<T, L>): readonly string[] => names
}
