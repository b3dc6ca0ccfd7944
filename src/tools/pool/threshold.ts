/**
 * The automatic deferral threshold (as Claude Code's): deferrable tools are deferred only when
 * their definitions would take more than a share of the context window — default 10 % of
 * 200,000 tokens — or there are more of them than a count. Below it, sending them in full is
 * cheaper than a search round trip. The estimate and the outcome go into `pool.assembled`.
 */
import { guarded } from '../../util/guarded.js'
import { anthropicTool, textOf } from '../to-api-format.js'
import type { Tool } from '../tool.types.js'

export interface DeferralOptions {
  /**
   * `auto` (default): defer the deferrable tools when they exceed the threshold; `always`:
   * defer every deferrable tool; `never`: send every tool in full.
   */
  mode?: 'auto' | 'always' | 'never'
  /** The model's context window in tokens. Default 200,000. */
  contextTokens?: number
  /** The share of the context the deferrable definitions may take before they are deferred. Default 0.1. */
  share?: number
  /** More deferrable tools than this are deferred whatever their size. Default 100. */
  maxTools?: number
}

export interface ThresholdOutcome {
  /** Estimated tokens of the deferrable tools' full definitions. */
  tokens: number
  maxTokens: number
  count: number
  maxCount: number
  deferred: boolean
}

export const DEFAULT_CONTEXT_TOKENS = 200_000
export const DEFAULT_DEFER_SHARE = 0.1
export const DEFAULT_DEFER_MAX_TOOLS = 100

/** Characters per token for the estimate: JSON schemas tokenize at about four. */
export const CHARS_PER_TOKEN = 4

const sizes = new WeakMap<Tool, { prompt: string; size: number }>()

/**
 * Characters of a tool's full Anthropic definition, cached per tool and text (the pool's view of a
 * tool whose description reads the context changes its text with it).
 */
export function definitionChars(tool: Tool): number {
  // A text not resolved yet (or failing) counts as empty: the pool that asks is assembled again
  // once the texts are resolved, and a turn or apiTools() never goes on without them.
  const prompt = guarded(() => textOf(tool, 'prompt'), '')
  let cached = sizes.get(tool)
  if (cached?.prompt !== prompt) {
    cached = { prompt, size: JSON.stringify(anthropicTool({ tool, deferred: false, prompt })).length }
    sizes.set(tool, cached)
  }
  return cached.size
}

/** Estimated tokens of a text of `chars` characters. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN)
}

/** @throws RangeError for options that could never work (a share outside 0..1, a negative size). */
export function checkDeferralOptions(options: DeferralOptions | undefined): void {
  if (options === undefined) return
  const { mode, contextTokens, share, maxTools } = options
  if (mode !== undefined && !['auto', 'always', 'never'].includes(mode))
    throw new RangeError(`createKernel: deferral.mode must be auto, always or never, got ${JSON.stringify(mode)}`)
  if (contextTokens !== undefined && !(Number.isFinite(contextTokens) && contextTokens > 0))
    throw new RangeError(`createKernel: deferral.contextTokens must be a positive number, got ${String(contextTokens)}`)
  if (share !== undefined && !(share >= 0 && share <= 1))
    throw new RangeError(`createKernel: deferral.share must be between 0 and 1, got ${String(share)}`)
  if (maxTools !== undefined && !(Number.isInteger(maxTools) && maxTools >= 0))
    throw new RangeError(`createKernel: deferral.maxTools must be a non-negative integer, got ${String(maxTools)}`)
}

export function deferralOutcome(deferrable: readonly Tool[], options: DeferralOptions = {}): ThresholdOutcome {
  const maxTokens = Math.floor(
    (options.contextTokens ?? DEFAULT_CONTEXT_TOKENS) * (options.share ?? DEFAULT_DEFER_SHARE),
  )
  const maxCount = options.maxTools ?? DEFAULT_DEFER_MAX_TOOLS
  const chars = deferrable.reduce((sum, tool) => sum + definitionChars(tool), 0)
  const tokens = estimateTokens(chars)
  const count = deferrable.length
  const mode = options.mode ?? 'auto'
  const over = tokens > maxTokens || count > maxCount
  const deferred = count > 0 && (mode === 'always' || (mode === 'auto' && over))
  return { tokens, maxTokens, count, maxCount, deferred }
}
