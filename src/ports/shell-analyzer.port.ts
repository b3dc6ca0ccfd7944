/** What the shell analysis says of one command. */
export interface CommandVerdict {
  readonly readOnly: boolean
  /** Why it is not read-only: a part that writes, or a command the analysis cannot follow. */
  readonly reason?: string
}

/**
 * The shell analysis a kernel hands its tools (`ports.shell`, and the context of a tool's
 * predicates): the kernel's bash grammar and the analysis its permission rules use, so the
 * scheduler, the rules, the mode and the tool judge one command alike. Fail-closed: a command it
 * cannot follow, or any command before the grammar is loaded, is not read-only.
 *
 * @example
 * isReadOnly: (input, context) => context?.shell.readOnly(input.command).readOnly === true
 */
export interface ShellAnalyzer {
  readOnly(command: string): CommandVerdict
}
