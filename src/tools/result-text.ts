/**
 * The words the model reads when a call does not simply succeed. Each says what happened, why,
 * and what the model may do next: the model decides its next step from this text alone.
 */
import { closest } from './input-errors.js'

export function unknownToolText(name: string, available: readonly string[]): string {
  const guess = closest(name, available)
  const hint = guess !== undefined ? ` Did you mean "${guess}"?` : ''
  const list = available.length > 0 ? ` Available tools: ${available.join(', ')}.` : ' No tools are available.'
  return `No such tool: "${name}".${hint}${list}`
}

export function disabledToolText(name: string): string {
  return `The tool "${name}" is disabled right now; use another tool or ask the user to enable it.`
}

export function invalidJsonText(tool: string, detail: string): string {
  return `The input for ${tool} is not valid JSON (${detail}), so the call did not run. Send the call again with one complete JSON object.`
}

export function notAnObjectText(tool: string, got: unknown, hint: string): string {
  const kind = got === null ? 'null' : Array.isArray(got) ? 'an array' : typeof got
  return `The input for ${tool} must be a JSON object of named fields, but it was ${kind}. Expected: ${hint}`
}

export function invalidInputText(tool: string, problems: readonly string[], hint: string): string {
  return `Invalid input for ${tool}:\n${problems.map((p) => `- ${p}`).join('\n')}\nExpected: ${hint}`
}

/** The tool's input schema threw instead of answering (a refinement's own code failed). */
export function schemaThrewText(tool: string, error: string): string {
  return `${tool} could not check its input: its input schema threw (${error}), so the call did not run.`
}

export function validateInputText(tool: string, message: string): string {
  return `${validateInputPrefix(tool)}${message}`
}

/** How a validator's rejection begins (replay takes it off to answer with the recorded message). */
export function validateInputPrefix(tool: string): string {
  return `${tool} rejected its input: `
}

export function permissionDeniedText(tool: string, reason: string): string {
  return `Permission to use ${tool} was denied: ${reason}. Do not retry the same call; choose another approach or ask the user.`
}

export function hookBlockedText(tool: string, reason: string): string {
  return `A PreToolUse hook blocked this ${tool} call: ${reason}`
}

export function toolErrorText(tool: string, error: unknown, attempts?: number): string {
  return `${toolErrorPrefix(tool, attempts)}${describeError(error)}`
}

/**
 * How a tool's error text begins (replay takes it off to throw the recorded error again); for a
 * tool that declares retries, with the number of attempts it made.
 */
export function toolErrorPrefix(tool: string, attempts?: number): string {
  if (attempts === undefined) return `${tool} failed: `
  return `${tool} failed after ${attempts} ${attempts === 1 ? 'attempt' : 'attempts'}: `
}

// What the model reads about a call that did not finish is written by recovery too: it lives with the log format.
export { cancelledText, interruptedText, ranUnrecordedText, timedOutText } from '../events/unfinished-text.js'

export function emptyOutputText(tool: string): string {
  return `(${tool} completed with no output)`
}

/**
 * The message of a thrown value, without a stack trace: `Error.message` (with its name when it
 * is not a plain Error), a string as it is, anything else as JSON.
 */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const message = error.message.split('\n    at ')[0]?.trim() ?? ''
    const named = error.name !== 'Error' && error.name !== '' ? `${error.name}: ` : ''
    return message === '' ? error.name || 'unknown error' : `${named}${message}`
  }
  if (typeof error === 'string') return error === '' ? 'unknown error' : error
  try {
    return JSON.stringify(error) ?? String(error)
  } catch {
    return String(error)
  }
}
