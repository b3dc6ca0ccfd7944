// git configuration given on the command line, alone (git-config.ts): how `-c` and its value
// are read (attached, apart, without `=`, at the end), where git's global options end, and what
// an alias's script gets appended. A setting missed here is a program git runs unseen.
import { describe, expect, it } from 'vitest'
import { analysis, known, line } from './analysis.js'

describe('the settings git -c gives', () => {
  // [command, the commands it runs, the wrappers of the last one]
  const rows: Array<[string, string[], string[]]> = [
    // `-c name` alone sets it to true: a pager named true.
    ['git -c core.pager log', ['git -c core.pager log', 'true'], ['git -c core.pager']],
    ['git -ccore.pager=less log', ['git -ccore.pager=less log', 'less'], ['git -c core.pager']],
    ['git -c', ['git -c'], []],
    ['git -C', ['git -C'], []],
    // An option without a value does not take the next word: the -c after it is read.
    ["git --no-pager -c alias.x='!rm V' x", ['git --no-pager -c alias.x=!rm V x', 'rm V'], ['git -c alias']],
    // The alias's script gets the words after it only when it is the subcommand.
    ["git -c alias.x='!rm V' log a", ['git -c alias.x=!rm V log a', 'rm V'], ['git -c alias']],
    // Each appended word is quoted as the shell would need it.
    ["git -c alias.x='!echo' x \"it's\"", ["git -c alias.x=!echo x it's", "echo it's"], ['git -c alias']],
  ]
  it.each(rows)('%j runs %j', (command, expected, via) => {
    const commands = known(command)
    expect(commands.map(line)).toEqual(expected)
    expect(commands.at(-1)?.via).toEqual(via)
  })
})

describe('what git -c makes unknown', () => {
  // [command, reason]
  const rows: Array<[string, string]> = [
    ['git -c alias.x x', 'the git alias x expands to git arguments (true), which are not analysed'],
    // Unquoted, $X splits into more words, which could be options; a whole "…" word cannot.
    ['git -C "$D"$X log', 'the value of git -C is computed at run time ("$D"$X) and could add options'],
  ]
  it.each(rows)('%j: %s', (command, reason) => {
    expect(analysis(command)).toMatchObject({ kind: 'unknown', reason })
  })

  it('a whole double-quoted value is one word, whatever it holds', () => {
    expect(known('git -C "$D" log').map(line)).toEqual(['git -C "$D" log'])
  })
})
