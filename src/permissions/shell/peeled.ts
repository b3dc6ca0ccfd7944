/**
 * What a wrapper turns out to run, and the small helpers every wrapper reader shares.
 */
import { scanOptions } from './options.js'
import type { FoundOption, OptionSpec } from './options.js'
import type { Word, WordAssignment } from './words.js'

/** What a command word turned out to be. */
export type Peeled =
  /** Not a wrapper, or a wrapper that runs nothing this time (`env` alone, `command -v x`). */
  | { readonly kind: 'self' }
  /** A wrapper around the command `words`. */
  | {
      readonly kind: 'wrapped'
      readonly via: string
      readonly words: readonly Word[]
      readonly assignments: readonly WordAssignment[]
      readonly openArgs: boolean
    }
  /** A shell running a script given as a string (`bash -c '…'`, `watch 'ls | wc'`). */
  | { readonly kind: 'script'; readonly via: string; readonly source: string; readonly dialect: 'bash' | 'zsh' }
  /**
   * A program that runs itself and also runs these commands (`find -exec`) and scripts (a git
   * `!`-alias or pager given with `git -c`, which git runs through the shell).
   */
  | {
      readonly kind: 'also'
      readonly via: string
      readonly inner: readonly (readonly Word[])[]
      readonly scripts?: readonly Script[]
    }
  | { readonly kind: 'unknown'; readonly reason: string }

/** A script a program runs through the shell, and the wrapper name it is reported under. */
export interface Script {
  readonly via: string
  readonly source: string
}

/** Reads one wrapper's words (the wrapper's own word first). */
export type Peeler = (words: readonly Word[]) => Peeled

/** Not a wrapper, or one that runs nothing this time. */
export const SELF: Peeled = { kind: 'self' }

/** What a wrapper adds to the command it runs. */
export interface WrapExtra {
  readonly assignments?: readonly WordAssignment[]
  readonly openArgs?: boolean
}

/** The wrapper `via` runs `words` (or nothing, if there are none). */
export function wrapped(via: string, words: readonly Word[], extra: WrapExtra = {}): Peeled {
  if (words.length === 0) return SELF
  return { kind: 'wrapped', via, words, assignments: extra.assignments ?? [], openArgs: extra.openArgs ?? false }
}

/** The wrapper cannot be read. */
export function unknown(reason: string): Peeled {
  return { kind: 'unknown', reason }
}

/** Runs the option scan and hands the operands on, or turns a failed scan into `unknown`. */
export function afterOptions(
  words: readonly Word[],
  spec: OptionSpec,
  who: string,
  then: (options: readonly FoundOption[], rest: readonly Word[]) => Peeled,
): Peeled {
  const scan = scanOptions(words, 1, spec, who)
  return scan.ok ? then(scan.options, words.slice(scan.operand)) : unknown(scan.reason)
}

/** Whether one of the named options was found. */
export const has = (options: readonly FoundOption[], ...names: string[]): boolean =>
  options.some((option) => names.includes(option.name))
