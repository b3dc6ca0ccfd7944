/**
 * File names as tool output shows them: a name is text the file system's owner chose, and a
 * newline in it would start a line of its own in Glob's list or Grep's `path:line:` output — a
 * forged path, a forged match, a forged instruction. A name holding a control character (C0, DEL,
 * C1), a line or paragraph separator, or a bidirectional override is shown as a JSON string in
 * double quotes with those characters as escapes (`"a\nb.txt"`, `"x\u0085y"`); so is a name that
 * itself starts with a double quote, so that the quoted form is never ambiguous. Every other name
 * is shown as it is. docs/decisions/tools.md records the choice.
 */

/** The characters that make a name shown quoted: those JSON escapes, and those it leaves as they are. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/
const LEFT_RAW = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/**
 * A path for tool output: as it is, or quoted and escaped when it holds a character that could
 * forge a line or hide its own text.
 *
 * @example
 * showName('src/a.ts') // 'src/a.ts'
 * showName('ok.txt\nrm -rf.txt') // '"ok.txt\\nrm -rf.txt"'
 */
export function showName(path: string): string {
  if (!UNSAFE.test(path) && !path.startsWith('"')) return path
  return JSON.stringify(path).replace(LEFT_RAW, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
