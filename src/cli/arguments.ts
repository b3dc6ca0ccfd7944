/** How the CLI words a bad command line. */

/**
 * parseArgs's complaint, said for `command`: an unknown option points at the command's help
 * (parseArgs's own words suggest \`--\`, which is never what was meant).
 *
 * @example
 * argumentProblem('stats', new Error("Unknown option '--at'. To specify …"))
 * // "unknown option '--at' (toolkernel stats --help lists its options)"
 */
export function argumentProblem(command: string, error: Error): string {
  const unknown = /^Unknown option '([^']+)'/.exec(error.message)
  if (unknown !== null) return `unknown option '${unknown[1]}' (toolkernel ${command} --help lists its options)`
  return `${error.message} (toolkernel ${command} --help)`
}
