/**
 * namedReads: the words of a command line that may name a file it reads, and why it may read one
 * that no word names. The policy judges these against the Read deny rules (decision 90), so a word
 * left out here is a file a rule no longer keeps.
 */
import { describe, expect, it } from 'vitest'
import { namedReads } from '../../../src/permissions/shell/reads.js'
import { known } from './analysis.js'

const reads = (command: string) => namedReads(known(command))

describe('the words that may name a file', () => {
  // Every spelling bash hands a reader as a file name: an operand, an option's value however it is
  // attached, git's rev:path, an input redirection — through pipes, lists and bash -c.
  it.each([
    ['cat .env', ['.env']],
    ["cat '.env' ./x", ['.env', './x']],
    ['head -n 1 .env', ['-n', '1', '.env']],
    ['grep --file=.env x', ['--file=.env', '.env', 'x']],
    ['grep -f.env x', ['-f.env', '.env', 'x']],
    ['git show HEAD:.env', ['show', 'HEAD:.env', '.env']],
    ['wc < .env', ['.env']],
    ["bash -c 'cat .env' | tr a b", ['.env', 'a', 'b']],
    ['python3 .env', ['.env']],
    ['cat ~/.netrc', ['~/.netrc']],
    // a glob's literal directory: a link there may lead anywhere
    ['head -c 9 me/env* "q"/* a/b/{c,d}', ['-c', '9', 'me', 'a/b']],
  ])('%s', (command, words) => {
    expect(reads(command).words).toEqual(words)
  })

  // A name alone is no read: ls and stat show metadata, echo its own words. Their arguments are
  // left out, so a Read rule does not deny `ls .env`.
  it.each(['ls .env', 'echo .env', 'stat .env', 'test -f .env'])('%s names no file it reads', (command) => {
    expect(reads(command)).toEqual({ words: [], unnamed: undefined })
  })

  it('an output redirection and a here-string are no reads; a `:` in a word is git only', () => {
    expect(reads('cat a:b <<< x > out 2>&1').words).toEqual(['a:b'])
  })
})

describe('reads no word names', () => {
  it.each([
    ['cat .en*', 'cat .en* reads files named at run time'],
    ['head {a,b}.txt', 'head {a,b}.txt reads files named at run time'],
    ['cat "$F"', 'cat "$F" reads files named at run time'],
    ['grep x $(ls)', 'grep $(ls) reads files named at run time'],
    ['cat < "$F"', 'the input "$F" is named at run time'],
    ['find . | xargs cat', 'xargs gives cat the names of the files it reads at run time'],
    ['cd sub && cat key', 'cd moves the directory the names after it are relative to'],
    ['pushd sub', 'pushd moves the directory the names after it are relative to'],
    ['rg token', 'rg searches every file below a directory'],
    ['git grep token', 'git grep searches every tracked file'],
    ['grep -r token .', 'grep -r reads every file below a directory'],
    ['grep -nR token .', 'grep -r reads every file below a directory'],
    ['egrep --recursive token', 'egrep -r reads every file below a directory'],
    ['grep --dereference-recursive token', 'grep -r reads every file below a directory'],
    ['grep --directories=recurse token .', 'grep -r reads every file below a directory'],
    ['grep -d recurse token .', 'grep -r reads every file below a directory'],
    ['diff -ru a b', 'diff -r compares every file below two directories'],
    ['diff --recursive a b', 'diff -r compares every file below two directories'],
  ])('%s', (command, why) => {
    expect(reads(command).unnamed).toBe(why)
  })

  // The first reason is kept; a later one does not replace it.
  it('the first reason wins', () => {
    expect(reads('cat *.md; rg x').unnamed).toBe('cat *.md reads files named at run time')
  })

  // A computed word is a read only for a command that reads the files its operands name: `ls *`
  // lists names, and `echo $HOME` reads nothing. A tilde alone is resolved by the policy.
  it.each(['ls *', 'echo $HOME', 'grep -n x a.txt', 'diff a b', 'cat ~/x', 'cat <(ls)', 'git log -p'])(
    '%s reads only what it names',
    (command) => {
      expect(reads(command).unnamed).toBeUndefined()
    },
  )
})
