// git's read-only verdict alone (git-read-only.ts): where its global options end and the
// subcommand begins, what only `git grep` forbids, and when `git branch` only lists. A wrong
// "read-only" runs without asking; each row was checked against git 2 on this machine.
import { describe, expect, it } from 'vitest'
import { readOnlyVerdict } from '../../../src/permissions/shell/read-only.table.js'
import { bash } from './analysis.js'

describe('git global options', () => {
  it.each([
    'git --help',
    'git --version',
    // A value given with = is the option's own word; given apart, it is the next one.
    'git --git-dir=.git status',
    'git --git-dir .git status',
    'git --work-tree=. -C . status',
    // A -c inside another option's value is not -c.
    'git --git-dir=a-cb status',
    'git --no-pager --bare log',
  ])('%j is read-only', (command) => {
    expect(readOnlyVerdict(command, bash())).toEqual({ readOnly: true })
  })
})

describe('what one subcommand forbids, the others need not', () => {
  it.each(['git diff -Oorder.txt', 'git log -O order.txt'])('%j is read-only (-O orders the diff)', (command) => {
    expect(readOnlyVerdict(command, bash())).toEqual({ readOnly: true })
  })
  it('git grep -O opens the files in a pager', () => {
    expect(readOnlyVerdict('git grep -O x', bash())).toEqual({
      readOnly: false,
      reason: 'git grep -O opens the matching files in a pager program it runs',
    })
  })
})

describe('git branch lists only with -l/--list, or with listing options alone', () => {
  it.each(['git branch', 'git branch -l', 'git branch -l feat', 'git branch --list feat', 'git branch -a -v'])(
    '%j is read-only',
    (command) => {
      expect(readOnlyVerdict(command, bash())).toEqual({ readOnly: true })
    },
  )
  it.each([
    ['git branch feat', 'git branch feat can create, rename or delete branches'],
    ['git branch -l -m a b', 'git branch -m can create, rename or delete branches'],
    ['git branch --list -D feat', 'git branch -D can create, rename or delete branches'],
  ])('%j is not read-only', (command, reason) => {
    expect(readOnlyVerdict(command, bash())).toEqual({ readOnly: false, reason })
  })
})
