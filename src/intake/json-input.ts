/** Tool input arriving as JSON text (stream fragments, OpenAI `arguments`). */

export interface ParsedInput {
  input: unknown
  /** Set when the text is not one JSON value; `input` is then the raw text. */
  inputError?: string
}

/**
 * Parses assembled tool input. Empty text is an empty object (a tool without parameters streams
 * no fragments); JSON that ends early is reported as cut off, other errors with the parser's words.
 */
export function parseToolInput(text: string): ParsedInput {
  if (text.trim() === '') return { input: {} }
  try {
    return { input: JSON.parse(text) as unknown }
  } catch (error) {
    const message = (error as Error).message
    const cutOff = endsOpen(text) && failsAtEnd(message, text)
    return {
      input: text,
      inputError: cutOff ? `it was cut off after ${text.length} characters, before the JSON was complete` : message,
    }
  }
}

/** The parser gave up at the very end of the text, not at a bad character inside it. */
function failsAtEnd(message: string, text: string): boolean {
  if (/end of JSON input|Unterminated string/.test(message)) return true
  const position = /at position (\d+)/.exec(message)?.[1]
  return position !== undefined && Number(position) >= text.trimEnd().length
}

/** True when the text stops inside a string or with an object or array still open. */
function endsOpen(text: string): boolean {
  let depth = 0
  let inString = false
  let escaped = false
  for (const ch of text) {
    if (inString) {
      if (escaped) escaped = false
      else if (ch === '\\') escaped = true
      else if (ch === '"') inString = false
    } else if (ch === '"') inString = true
    else if (ch === '{' || ch === '[') depth++
    else if (ch === '}' || ch === ']') depth--
  }
  return inString || depth > 0
}
