/**
 * The permission step: the tool's own `checkPermissions`, then the app's `canUseTool` for "ask".
 * Rules and modes plug in here (the hooks-and-permissions issue).
 */
import type { PermissionDecision } from '../machines/tool-call.types.js'
import type { Tool, ToolContext } from '../tools/tool.types.js'
import { describeError } from './result-text.js'
import { allowByDefault } from '../tools/build-tool.js'

/** What the app is asked when a call needs approval. */
export interface PermissionRequest {
  tool: string
  toolUseId: string
  input: unknown
  reason: string
}

/** The app's answer: allow (optionally with edited input) or deny with a message for the model. */
export type PermissionAnswer = { behavior: 'allow'; updatedInput?: unknown } | { behavior: 'deny'; message: string }

export type CanUseTool = (request: PermissionRequest, options: { signal: AbortSignal }) => PermissionAnswer | Promise<PermissionAnswer>

export interface PermissionVerdict extends PermissionDecision {
  /** Input replaced by the tool or the app; validated again before the call. */
  updatedInput?: unknown
}

export interface PermissionPolicy {
  decide(tool: Tool, input: unknown, context: ToolContext): Promise<PermissionVerdict> | PermissionVerdict
  /**
   * What `decide` will say, when that is known without running anything: early start (while the
   * model is still streaming) is only for calls that will not stop to ask. 'unknown' waits.
   */
  preview(tool: Tool, input: unknown): 'allow' | 'deny' | 'ask' | 'unknown'
}

/** The default policy: the tool decides; "ask" goes to `canUseTool`, or is denied when there is none. */
export function toolPermissionPolicy(canUseTool?: CanUseTool): PermissionPolicy {
  return {
    preview: (tool) => (tool.checkPermissions === allowByDefault ? 'allow' : 'unknown'),
    decide(tool, input, context) {
      const answer = tool.checkPermissions(input, context)
      return answer instanceof Promise ? answer.then((a) => resolve(a)) : resolve(answer)

      function resolve(result: Awaited<ReturnType<Tool['checkPermissions']>>): PermissionVerdict | Promise<PermissionVerdict> {
        if (result.behavior === 'allow') {
          return result.updatedInput === undefined ? ALLOW_BY_TOOL : { ...ALLOW_BY_TOOL, updatedInput: result.updatedInput }
        }
        if (result.behavior === 'deny') return { behavior: 'deny', source: 'tool', reason: result.message }
        return ask(result.message)
      }

      async function ask(reason: string): Promise<PermissionVerdict> {
        if (canUseTool === undefined) {
          return { behavior: 'deny', source: 'default', reason: `${tool.name} needs approval (${reason}) and this app has no way to ask the user` }
        }
        try {
          const answer = await canUseTool({ tool: tool.name, toolUseId: context.toolUseId, input, reason }, { signal: context.signal })
          if (answer.behavior === 'allow') {
            return answer.updatedInput === undefined ? { behavior: 'allow', source: 'user' } : { behavior: 'allow', source: 'user', updatedInput: answer.updatedInput }
          }
          return { behavior: 'deny', source: 'user', reason: answer.message }
        } catch (error) {
          return { behavior: 'deny', source: 'user', reason: `the approval prompt failed (${describeError(error)})` }
        }
      }
    },
  }
}

const ALLOW_BY_TOOL: PermissionVerdict = Object.freeze({ behavior: 'allow', source: 'tool' })
