/**
 * The `ignore` package (gitignore-style rules), loaded on first use: importing it costs tens of
 * milliseconds at start-up, and only path rules and the file searches need it.
 */
import type { Ignore, Options } from 'ignore'
import { builtin } from './builtin.js'

export type { Ignore } from 'ignore'

type IgnoreFactory = (options?: Options) => Ignore
let factory: IgnoreFactory | undefined

/** A new, empty rule set (as `ignore(options)`). */
export function ignoreRules(options?: Options): Ignore {
  factory ??= builtin('node:module').createRequire(import.meta.url)('ignore') as IgnoreFactory
  return factory(options)
}
