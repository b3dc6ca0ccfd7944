// Emitting commands, alone (emit.ts): what a nested command's wrapper lines are, which dialect's
// hazards a script is checked for, and how assignments are checked — the name they set, and the
// command a command-valued variable holds.
import { describe, expect, it } from 'vitest'
import { analysis, known, line } from './analysis.js'

describe('wrapper lines, which deny rules also match', () => {
  it('a command find -exec runs carries find’s whole line', () => {
    expect(known('find . -exec rm {} \\;')[1]?.wrapperLines).toEqual(['find . -exec rm {} ;'])
  })

  it('the command a variable holds carries the assignment as its line', () => {
    expect(known("GIT_EDITOR='rm -rf x' git commit")[0]?.wrapperLines).toEqual(['GIT_EDITOR=rm -rf x'])
  })
})

describe('a script is checked for its own shell’s hazards', () => {
  it('=command expansion is a zsh hazard only: in a bash script =ls is a word', () => {
    expect(known("bash -c 'echo =ls'").map(line)).toEqual(['echo =ls'])
    expect(analysis("zsh -c 'echo =ls'")).toMatchObject({
      kind: 'unknown',
      reason: 'zsh glob qualifiers and =command expansion are not analysed',
    })
  })
})

describe('assignments', () => {
  it('an element assignment sets the array itself (its value is then evaluated as the array’s)', () => {
    expect(analysis("a[0]='x[$(rm y)]'; echo $((a))")).toMatchObject({
      kind: 'unknown',
      reason: 'bash evaluates the value of a as arithmetic or a name, and the command sets a itself',
    })
  })

  it('a command-valued variable set empty holds no command', () => {
    expect(known('GIT_EDITOR= git commit').map(line)).toEqual(['git commit'])
  })

  it('one whose value is computed at run time is unknown, saying so', () => {
    expect(analysis('GIT_EDITOR="$E" git commit')).toMatchObject({
      kind: 'unknown',
      reason: 'GIT_EDITOR holds a command and its value is computed at run time',
    })
  })
})
