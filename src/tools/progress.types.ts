/**
 * Progress, typed per tool (docs/decisions/tools.md, 144 and 173): what a tool reports (`P` of
 * `Tool<I, O, P>`) is what an app reads from `turn.updates()`, when the kernel's tools are
 * known statically.
 */
import type { ProgressPair } from '../events/progress-pair.js'
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

/** `T`, or `unknown` where a kernel's tools come from sources too (MCP servers), whose progress no type knows. */
type UnlessSourced<O, T> = O extends { readonly toolSources: infer S } ? (S extends undefined ? T : unknown) : T

/** What a kernel's options are read for: its tools, and whether any come from sources. */
type ToolOptions = { readonly tools: readonly Tool[]; readonly toolSources?: unknown }

/** The progress a kernel's turns report: its tools' union, or `unknown` where tools come from sources too. */
export type KernelProgress<O extends ToolOptions> = UnlessSourced<O, ToolsProgress<O['tools']>>

/**
 * A tool's progress paired with its name: the data type branded with both (a type only; no value
 * has the brand). When a kernel's `P` is a union of these, a progress update's `data` narrows by
 * its `tool`: `if (u.type === 'progress' && u.tool === 'Bash') u.data` is Bash's progress (a
 * `string`). Being its data type too, a union of pairs is assignable to the union of the data, so
 * a `Kernel<P>` still goes where a `Kernel<data union>` or a `Kernel` is expected.
 */
export type ToolProgress<N extends string = string, D = unknown> = D & ProgressPair<N, D>

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type PairOf<T> = T extends Tool<any, any, infer P> & { readonly name: infer N extends string }
  ? ToolProgress<N, P>
  : never

/**
 * Each tool of a list paired with its progress: `ToolProgress<'Bash', string> | …`. A tool whose
 * name is a plain `string` (not a literal type) pairs as `ToolProgress<string, P>`, which narrows
 * nothing.
 */
export type ToolsProgressByName<Tools extends readonly Tool[]> = PairOf<Tools[number]>

/**
 * The progress a kernel's turns report, keyed by tool name (what `createKernel` gives its
 * `Kernel<P>`): its tools' pairs, or `unknown` where tools come from sources too (MCP servers).
 */
export type KernelProgressByName<O extends ToolOptions> = UnlessSourced<O, ToolsProgressByName<O['tools']>>
