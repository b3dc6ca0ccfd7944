// The word reader (words.ts) at its edges: the value bash passes once quotes, escapes and `$'…'`
// are resolved. A value the analysis reads differently from bash is a command or an argument the
// permission check never sees, so each expected value here was checked against bash 5.2
// (`bash -c "printf '%s\n' WORDS"`, or by running the command in a temp directory).
import { describe, expect, it } from 'vitest'
import { readOnlyVerdict } from '../../../src/permissions/shell/read-only.table.js'
import { analysis, bash, known, outcome } from './analysis.js'

/** True when the analysis refuses the command or reports `expected` among what it runs. */
function seesOrRefuses(command: string, expected: string): boolean {
  const found = outcome(command)
  return !Array.isArray(found) || found.includes(expected)
}

describe('bugs: words bash reads differently from the grammar', () => {
  // Was a bug (fixed in analyze.ts by gluedContinuation): the grammar ends a word at a
  // backslash-newline (`-de` and `lete`), where bash removes the pair and joins the halves:
  // `find . -de\<newline>lete` is `find . -delete` to bash, and deleted every file of a temp
  // directory while the analysis called it read-only.
  it('a backslash-newline inside a word joins its halves, as bash does (find -delete)', () => {
    expect(readOnlyVerdict('find . -de\\\nlete', bash()).readOnly).toBe(false)
  })

  // Was a bug (same fix): the split hid a command name: bash runs `rm x` for `r\<newline>m x`
  // (checked: x was removed), the analysis reported a command `r` with the arguments `m x`.
  it('a backslash-newline inside a command name joins it (r\\<newline>m is rm)', () => {
    expect(seesOrRefuses('r\\\nm x', 'rm x')).toBe(true)
  })

  // BUG: the grammar reads `\'` inside `$'…'` as an escaped quote even after an escaped backslash:
  // in `$'\\'` bash ends the string at the third quote, the grammar runs it on to the next quote,
  // swallowing the lines between. Bash ran `rm x` here (x was removed); the analysis saw one `cat`.
  it("a $'…' string ends after an escaped backslash (the next lines are commands)", () => {
    const command = "cat $'\\\\'\nrm x\n#'"
    expect(readOnlyVerdict(command, bash()).readOnly).toBe(false)
    expect(seesOrRefuses(command, 'rm x')).toBe(true)
  })

  // BUG: bash keeps the low 8 bits of an octal escape above \377: `$'\562m'` is `rm` to bash
  // (0o562 & 0xff is `r`), the analysis decodes U+0172 and reports a command named `Ųm`.
  it("an octal escape above \\377 in $'…' keeps its low byte, as bash does", () => {
    expect(seesOrRefuses("$'\\562m' x", 'rm x')).toBe(true)
  })

  // BUG (minor: no command name comes of it): bash's `\c?` is DEL, and `\c\\` takes both
  // backslashes (printf shows 177 and 034 x); the analysis gives 0x1f, and 0x1c followed by `\x`.
  it("\\c? and \\c\\\\ in $'…' decode as bash decodes them", () => {
    expect(known("echo $'\\c?' $'\\c\\\\x'")[0]?.args).toEqual(['\u007f', '\u001cx'])
  })

  // BUG (minor): the grammar folds the spaces of a double-quoted string that holds only spaces or
  // tabs into its closing quote, and the reader drops them: bash passes ' ' and '\t', not ''.
  it.fails('a double-quoted string of spaces keeps them', () => {
    expect(known('echo " " "\t"')[0]?.args).toEqual([' ', '\t'])
  })
})

describe('words: the parts of a word the reader does not know', () => {
  // `$"…"` (a translated string) is not read: glued to a word the grammar gives a bare `$` node,
  // after `export a` a translated_string node. Reading either as nothing would drop part of the word.
  const rows: Array<[string, string]> = [
    ['echo a$"x"', 'the word "$" uses syntax the analysis does not read ($)'],
    ['export a$"b"', 'the word "$\\"b\\"" uses syntax the analysis does not read (translated_string)'],
  ]
  it.each(rows)('%j is unknown: %s', (command, reason) => {
    expect(analysis(command)).toEqual({ kind: 'unknown', reason, source: command })
  })
})

describe('words: line breaks the grammar reads into a word', () => {
  // The reader refuses such a word itself, naming all of it: a long path hiding a command on the
  // next line is reported whole, not cut to the 60 characters the walker's own check keeps.
  it('refuses the word with its whole text', () => {
    const word = `\n\\${'/bin/..'.repeat(8)}/bin/rm`
    expect(analysis(`ls${word} x`)).toMatchObject({
      kind: 'unknown',
      reason: `the grammar read a line break into the word ${JSON.stringify(word)}`,
    })
  })
})

describe('words: double-quoted text between the nodes of a string', () => {
  // The grammar gives a line break inside "…" no node of its own (only the quotes): the reader takes
  // it from the text between the nodes. bash passes the line breaks as they are.
  const rows: Array<[string, string[]]> = [
    ['echo "\n"', ['\n']],
    ['echo "\n\n"', ['\n\n']],
    ['echo x "\n" y', ['x', '\n', 'y']],
  ]
  it.each(rows)('%j has the words %j', (command, args) => {
    expect(known(command)[0]?.args).toEqual(args)
  })
})

describe("words: $'…' escapes", () => {
  // An escape bash does not know keeps its backslash, and the characters after it stay literal:
  // a digit, x41, u0041 or U00000041 later in the string is not an escape of its own.
  it('reads an unknown escape and what follows it literally', () => {
    expect(known("echo $'\\q1' $'\\qx41' $'\\qu0041' $'\\qU00000041'")[0]?.args).toEqual([
      '\\q1',
      '\\qx41',
      '\\qu0041',
      '\\qU00000041',
    ])
  })

  // U+10FFFF is the last code point: bash prints it (f4 8f bf bf); only past it is out of range.
  it('decodes the last code point of Unicode', () => {
    expect(known("echo $'\\U10FFFF'")[0]?.args).toEqual(['\u{10ffff}'])
  })
})
