/**
 * The analysis stops at the first construct it cannot see through. It walks a tree recursively,
 * so it signals that with this exception, and `analyzeShell` turns it into data (an `unknown`
 * analysis) at its boundary: no caller ever sees it thrown.
 */
export class ShellUnknown extends Error {
  override readonly name = 'ShellUnknown'
}

/** Stops the analysis: the command is unknown for `reason` (a sentence the model can read). */
export function fail(reason: string): never {
  throw new ShellUnknown(reason)
}
