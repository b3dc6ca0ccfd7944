/**
 * The closed set of error classes, at its edges: a class reaches `error.type` and the log, so
 * nothing of an error's free text (paths, input, secrets) may ever pass for one.
 */
import { describe, expect, it } from 'vitest'
import { classifyToolError, classOfToolErrorText, isErrorName } from '../../src/events/error-class.js'

describe('isErrorName: a whole identifier ending in Error or Exception, at most 64 characters', () => {
  // Each rejected row is a name that holds a valid one somewhere inside: only the whole string counts.
  it.each([
    ['TypeError', true],
    ['AbortError', true],
    ['SocketException', true],
    ['$_Error', true],
    ['Error', true],
    ['A'.repeat(59) + 'Error', true],
    ['A'.repeat(60) + 'Error', false],
    ['custom', false],
    ['ErrorHandler', false],
    ['TypeError: /home/me/secret', false],
    ['1TypeError', false],
    ['read /etc/passwd TypeError', false],
    ['Type-Error', false],
    ['', false],
  ])('%s → %s', (name, expected) => {
    expect(isErrorName(name)).toBe(expected)
  })
})

describe('classifyToolError: the name of an Error subclass, only when it is an error name', () => {
  const named = (name: string) => Object.assign(new Error('x'), { name })
  it.each([
    ['ValidationError', 'ValidationError'],
    ['SocketException', 'SocketException'],
    ['custom', 'Error'],
    ['ErrorWithToken abc123', 'Error'],
    ['token=abc123 TypeError', 'Error'],
    ['Token-Error', 'Error'],
  ])('name %s → %s', (name, expected) => {
    expect(classifyToolError(named(name))).toBe(expected)
  })
})

describe('classOfToolErrorText: the class at the head of "<Tool> failed: <describeError>", else Error', () => {
  // Older logs hold only the text: the head is taken when it is an errno code or an error name, and
  // only from the first line (a tool name has no newline; a later line is the error's free text).
  it.each([
    ['Read failed: ENOENT: no such file or directory', 'ENOENT'],
    ['Bash failed: TypeError: x is not a function', 'TypeError'],
    ['Fetch failed: hunter2: the token was refused', 'Error'],
    ['Read failed: ErrorCode: 7', 'Error'],
    ['Read failed: ENOPE: not an errno code', 'Error'],
    ['the hook said\nRead failed: ENOENT: no such file', 'Error'],
    ['Read failed: ENOENT', 'Error'],
    ['', 'Error'],
  ])('%j → %s', (message, expected) => {
    expect(classOfToolErrorText(message)).toBe(expected)
  })
})
