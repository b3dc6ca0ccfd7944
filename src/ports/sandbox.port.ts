/**
 * An operating-system sandbox under the permission rules (docs/decisions/processes.md, 113): the
 * shell analysis cannot see what `python -c` or `make` will do, so the processes the kernel starts
 * (Bash, command hooks) can be run where the OS itself refuses writes outside the workspace, the
 * network, and processes that outlive the command. Linux has a bubblewrap adapter; another OS adds
 * its own adapter behind this port (macOS: sandbox-exec).
 */

/** What a sandboxed command may write: nothing, the workspace (and configured paths), or anything (no sandbox). */
export type SandboxMode = 'read-only' | 'workspace-write' | 'off'

/**
 * Whether a sandboxed command reaches the network: not at all, all of it, or only the listed domains
 * through a proxy outside the sandbox (`example.com` exactly, `*.example.com` its subdomains).
 */
export type SandboxNetwork = 'off' | 'on' | { readonly allowDomains: readonly string[] }

/** One sandbox's rules, as configured (recorded in session.configured). */
export interface SandboxPolicy {
  readonly mode: SandboxMode
  readonly network: SandboxNetwork
  /** Absolute paths writable in `workspace-write` besides the working directory and the result store. */
  readonly writable: readonly string[]
}

/** A program and its arguments. */
export interface CommandLine {
  readonly file: string
  readonly args: readonly string[]
}

/** Runs commands under one policy. */
export interface Sandbox {
  readonly policy: SandboxPolicy
  /**
   * Undefined when commands can run in this sandbox; otherwise why they cannot and the fix. Checked
   * once (the answer is cached): a sandbox that cannot run fails every call, never runs it unsandboxed.
   */
  check(): Promise<string | undefined>
  /** The command line that runs `command` inside the sandbox, in `cwd`. Mode `off`: `command` as it is. */
  wrap(command: CommandLine, cwd: string): CommandLine
  /**
   * Releases what the sandbox started for its commands (the allowDomains proxy); a later check
   * starts it again. Absent: nothing to release.
   */
  close?(): Promise<void>
}

/** What a sandbox built for a kernel must keep in view besides its policy. */
export interface SandboxScope {
  /** Names read-only wherever they appear in a writable directory (`.git`, `.claude`, …). */
  readonly protectedNames: readonly string[]
  /** Absolute paths read-only even inside a writable directory. */
  readonly protectedDirs: readonly string[]
  /** The result store's directory, writable in `workspace-write` (a command may keep output there). */
  readonly resultsDir?: string
}

/** Builds sandboxes: one per policy, sharing one check of the machine. */
export interface SandboxProvider {
  /** The program's name, for messages ("bubblewrap"). */
  readonly name: string
  create(policy: SandboxPolicy, scope: SandboxScope): Sandbox
}

/** The sandbox each tool's processes run in (a tool may override the kernel's). */
export interface ToolSandboxes {
  forTool(name: string): Sandbox
  /** Releases what every sandbox started (kernel.close()). */
  close?(): Promise<void>
}
