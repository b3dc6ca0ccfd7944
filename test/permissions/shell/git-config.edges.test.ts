// git configuration given on the command line (git-config.ts) at its edges: options with their
// value attached (`--config-env=`, `--git-dir=`), single-dash options that are not `-c`, an empty
// key, a `-C` value only partly quoted, and an alias defined with no subcommand after it. A setting
// misread here is a program git runs unseen.
import { describe, expect, it } from 'vitest'
import { analysis, known, line } from './analysis.js'

describe('git -c: what git runs', () => {
  // [command, the commands it runs, the wrappers of the last one]
  const rows: Array<[string, string[], string[]]> = [
    // Only `-c` takes its value attached: another single-dash word sets nothing (git refuses -Cdir).
    ['git -Cdir log', ['git -Cdir log'], []],
    // An alias with no subcommand after it is defined, not run, and its script gets no words: the
    // script is still reported (a later word could name it), and reading the missing subcommand
    // must not fail.
    ["git -c alias.x='!rm V'", ['git -c alias.x=!rm V', 'rm V'], ['git -c alias']],
    // A value attached with `=` takes no word after it: the -c that follows is read.
    ["git --git-dir=g -c alias.x='!rm V' x a", ['git --git-dir=g -c alias.x=!rm V x a', 'rm V a'], ['git -c alias']],
  ]
  it.each(rows)('%j runs %j', (command, expected, via) => {
    const commands = known(command)
    expect(commands.map(line)).toEqual(expected)
    expect(commands.at(-1)?.via).toEqual(via)
  })
})

describe('git -c: what is unknown', () => {
  // [command, reason]: the reason names the key exactly as git reads it.
  const rows: Array<[string, string]> = [
    // `--config-env=name=VAR`: the name starts right after the first `=`.
    ['git --config-env=core.pager=P log', 'git --config-env sets core.pager, a command git runs, from the environment'],
    ['git --config-env=alias.x=V x', 'git --config-env sets the alias x from the environment, which is not analysed'],
    // A setting that starts with `=` has an empty name: nothing before the `=` is the key.
    ['git -c =x log', 'git -c sets , which can name a program git runs or more configuration to load'],
    // Only a whole "…" word is one word: $X before it splits into words that could be options.
    ['git -C $X"$D" log', 'the value of git -C is computed at run time ($X"$D") and could add options'],
  ]
  it.each(rows)('%j: %s', (command, reason) => {
    expect(analysis(command)).toEqual({ kind: 'unknown', reason, source: command })
  })
})
