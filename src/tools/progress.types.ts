/**
 * Progress, typed per tool (docs/decisions/tools.md, 173): what a tool reports (`P` of
 * `Tool<I, O, P>`) is what an app reads from `turn.updates()`, when the kernel's tools are
 * known statically.
 */
import type { Tool } from './tool.types.js'

/**
 * The progress data one tool reports: its `P`.
 *
 * @example
 * type P = ProgressOf<typeof Bash> // what Bash yields while it runs
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ProgressOf<T> = T extends Tool<any, any, infer P> ? P : never

/**
 * The progress data a list of tools reports: the union of their `P`.
 *
 * @example
 * const tools = [Read, Bash] as const
 * type P = ToolsProgress<typeof tools>
 */
export type ToolsProgress<Tools extends readonly Tool[]> = ProgressOf<Tools[number]>

/**
 * The progress a kernel's turns report: its tools' union, or `unknown` where tools come from
 * sources too (MCP servers), whose progress no type knows.
 */
export type KernelProgress<O extends { readonly tools: readonly Tool[]; readonly toolSources?: unknown }> = O extends {
  readonly toolSources: infer S
}
  ? S extends undefined
    ? ToolsProgress<O['tools']>
    : unknown
  : ToolsProgress<O['tools']>
