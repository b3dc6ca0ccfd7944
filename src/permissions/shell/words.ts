/**
 * Shell words: the value bash passes to a program once quotes are removed, and the expansions a
 * word still contains (which bash resolves only at run time).
 */
import type { Expansion, ShellNode } from './shell.types.js'
import { fail } from './unknown.js'

/** A word as the analysis sees it. */
export interface Word {
  /** Quotes and escapes resolved; expansions keep their raw text. */
  readonly value: string
  /** The word as written. */
  readonly raw: string
  readonly expansions: readonly Expansion[]
}

/** An assignment as read, knowing whether its value is computed at run time. */
export interface WordAssignment {
  readonly name: string
  readonly value: string
  readonly dynamic: boolean
}

interface Acc {
  value: string
  /** The value with quoted characters replaced by NUL: what globbing and brace expansion see. */
  pattern: string
  readonly expansions: Set<Expansion>
}

const QUOTED = '\u0000'
const EXPANDED = '\u0001'

/** Resolves a word node (`word`, `string`, `concatenation` …) to its value and expansions. */
export function resolveWord(node: ShellNode): Word {
  const acc: Acc = { value: '', pattern: '', expansions: new Set() }
  addPart(node, acc)
  if (/[*?[]|[@!+]\(/.test(acc.pattern)) acc.expansions.add('glob')
  if (/\{[^{}]*(,|\.\.)[^{}]*\}/.test(acc.pattern)) acc.expansions.add('brace')
  if (acc.pattern.startsWith('~')) acc.expansions.add('tilde')
  return { value: acc.value, raw: node.text, expansions: [...acc.expansions] }
}

/** A word that is literal by construction (a keyword, a variable name). */
export function literalWord(text: string): Word {
  return { value: text, raw: text, expansions: [] }
}

/** The word contains something bash computes at run time (tilde expansion aside). */
export function isDynamic(word: Word): boolean {
  return word.expansions.some((kind) => kind !== 'tilde')
}

/** What a program receives for this word, as the analysis reports it (raw if dynamic). */
export function wordText(word: Word): string {
  return isDynamic(word) ? word.raw : word.value
}

const EXPANSION_KIND: Readonly<Record<string, Expansion>> = {
  simple_expansion: 'parameter',
  expansion: 'parameter',
  command_substitution: 'command',
  process_substitution: 'process',
  arithmetic_expansion: 'arithmetic',
}

function addPart(node: ShellNode, acc: Acc): void {
  const kind = EXPANSION_KIND[node.type]
  if (kind !== undefined) return addExpansion(node.text, kind, acc)
  switch (node.type) {
    case 'word':
      return addUnquoted(node.text, acc)
    case 'number':
    case 'brace_expression':
      acc.value += node.text
      acc.pattern += node.text
      return
    case 'raw_string':
      return addQuoted(node.text.slice(1, -1), acc)
    case 'ansi_c_string':
      return addQuoted(decodeAnsiC(node.text.slice(2, -1)), acc)
    case 'string':
      return addDoubleQuoted(node, acc)
    case 'concatenation':
      for (const child of node.children) addPart(child, acc)
      return
    default:
      fail(`the word ${JSON.stringify(node.text)} uses syntax the analysis does not read (${node.type})`)
  }
}

function addExpansion(text: string, kind: Expansion, acc: Acc): void {
  acc.value += text
  acc.pattern += EXPANDED
  acc.expansions.add(kind)
}

function addQuoted(text: string, acc: Acc): void {
  acc.value += text
  acc.pattern += QUOTED.repeat(text.length)
}

/**
 * An unquoted line break ends a word in bash, but the grammar sometimes reads one into a word:
 * `ls` newline `\rm x` comes back as `ls` with the argument `\n\rm`. Such a tree hides a command.
 */
export function hasUnescapedNewline(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i)
    if (ch === '\\') i++
    else if (ch === '\n') return true
  }
  return false
}

/** Outside quotes a backslash quotes the next character; backslash-newline disappears. */
function addUnquoted(text: string, acc: Acc): void {
  if (hasUnescapedNewline(text)) fail(`the grammar read a line break into the word ${JSON.stringify(text)}`)
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i)
    if (ch !== '\\' || i + 1 >= text.length) {
      acc.value += ch
      acc.pattern += ch
      continue
    }
    const next = text.charAt(++i)
    if (next !== '\n') addQuoted(next, acc)
  }
}

function addDoubleQuoted(node: ShellNode, acc: Acc): void {
  let at = node.start + 1
  for (const child of node.children) {
    if (child.start > at) addDoubleQuotedText(node.text.slice(at - node.start, child.start - node.start), acc)
    at = Math.max(at, child.end)
    if (child.type === '"') continue
    if (child.type === 'string_content') addDoubleQuotedText(child.text, acc)
    // A `$` that starts no expansion (`"$"`, `"a$"`) is the character itself, as bash reads it.
    else if (child.type === '$' && !child.named) addQuoted('$', acc)
    else addPart(child, acc)
  }
}

/** Inside double quotes a backslash escapes only `$`, backquote, `"`, `\` and newline. */
function addDoubleQuotedText(text: string, acc: Acc): void {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i)
    const next = text.charAt(i + 1)
    if (ch === '\\' && '$`"\\\n'.includes(next) && next !== '') {
      if (next !== '\n') out += next
      i++
    } else out += ch
  }
  addQuoted(out, acc)
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
}

/** Decodes the body of `$'…'` as bash does (a NUL ends the string). */
export function decodeAnsiC(body: string): string {
  let out = ''
  let ended = false
  let i = 0
  while (i < body.length) {
    const ch = body.charAt(i)
    // Escapes are read in pairs, so a quote here is where bash ends the string: the grammar read
    // it as escaped after an escaped backslash (`$'\\'`) and ran the string on over the lines between.
    if (ch === "'")
      fail("bash ends this $'…' string earlier than the grammar reads it (a ' after an escaped backslash)")
    const [decoded, used] = ch !== '\\' || i + 1 >= body.length ? [ch, 0] : decodeEscape(body, i + 1)
    if (decoded === '\u0000') ended = true
    if (!ended) out += decoded
    i += 1 + used
  }
  return out
}

/** One escape after the backslash at `at - 1`: the decoded text and how many characters it used. */
function decodeEscape(body: string, at: number): [string, number] {
  const ch = body.charAt(at)
  const simple = SIMPLE_ESCAPES[ch]
  if (simple !== undefined) return [simple, 1]
  const numeric = /^([0-7]{1,3})|^x([0-9a-fA-F]{1,2})|^u([0-9a-fA-F]{1,4})|^U([0-9a-fA-F]{1,8})/.exec(body.slice(at))
  if (numeric !== null) {
    const [whole, octal, hex, u4, u8] = numeric
    // An octal escape is one byte: bash keeps the low eight bits of \562 (`r`).
    const code = octal !== undefined ? parseInt(octal, 8) & 0xff : parseInt(hex ?? u4 ?? u8 ?? '', 16)
    if (code > 0x10ffff) fail(`the escape \\${whole} in $'…' is out of range`)
    return [String.fromCodePoint(code), whole.length]
  }
  if (ch === 'c' && at + 1 < body.length) {
    const next = body.charAt(at + 1)
    // As bash: \c? is DEL, and \c\\ takes both backslashes.
    if (next === '?') return ['\x7f', 2]
    if (next === '\\' && body.charAt(at + 2) === '\\') return ['\x1c', 3]
    return [String.fromCharCode(body.charCodeAt(at + 1) & 0x1f), 2]
  }
  return ['\\' + ch, 1]
}
