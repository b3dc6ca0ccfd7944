/**
 * What the CLI writes to a terminal from a log is the model's and the tools' text: it must not
 * be able to drive the terminal (retitle it, clear it, move the cursor, rewrite a line with '\r',
 * reorder what is shown with bidi overrides). Everything goes through `safeForTerminal` at the
 * output boundary.
 */

// C0 controls, DEL, C1 controls (which some terminals obey as 8-bit escapes), bidi overrides.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g
const UNSAFE_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/**
 * `text` with every control character shown as a visible escape (`\x1b`, `\x07`, `\r` as
 * `\x0d`, `\u202e`), so it prints as text and does nothing. Newlines are kept only with
 * `{ newlines: true }`, for text whose line breaks are wanted; otherwise `text` is one line.
 *
 * @example
 * safeForTerminal('\x1b]0;pwned\x07') // '\\x1b]0;pwned\\x07'
 */
export function safeForTerminal(text: string, options: { newlines?: boolean } = {}): string {
  const unsafe = options.newlines === true ? UNSAFE_BUT_NEWLINE : UNSAFE
  unsafe.lastIndex = 0
  if (!unsafe.test(text)) return text
  return text.replace(unsafe, escape)
}

function escape(char: string): string {
  const code = char.charCodeAt(0)
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}
