/**
 * One check for every public function that takes an options object: a key it does not know is
 * refused with the ones it takes, never ignored (docs/decisions/build-and-layout.md, "No silent
 * options"). An option misspelled or taken from another library's API would otherwise change
 * nothing and say nothing.
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
