/**
 * Grants: "allow for the session" answers. Each is an event in the log, so a session resumed from
 * its log honours them: the kernel rebuilds its grants from `permission.granted` events.
 */
import { createHash } from 'node:crypto'
import type { KernelEvent } from '../events/event.schema.js'
import { canonicalJson } from '../util/canonical-json.js'
import type { Tool } from '../tools/tool.types.js'
import type { PathJudge } from './paths.js'
import { matchRules } from './ruleset.js'
import { parseRule } from './rules.js'

/** What a grant covers: this exact call, every call of the tool, or calls matching a rule. */
export type GrantScope = { scope: 'call' } | { scope: 'tool' } | { scope: 'rule'; rule: string }

export interface Grant {
  tool: string
  scope: 'call' | 'tool' | 'rule'
  /** For 'call': the canonical fingerprint of tool and input. */
  fingerprint?: string
  /** For 'rule': the allow rule granted. */
  rule?: string
}

/** A stable fingerprint of a call: the tool name and its input as JSON with sorted keys. */
export function fingerprint(tool: string, input: unknown): string {
  return createHash('sha256')
    .update(`${tool}\u0000${canonicalJson(input)}`)
    .digest('hex')
    .slice(0, 32)
}

export class Grants {
  readonly #grants: Grant[] = []

  /** `judge`: where paths really point, for grants of a path rule (as for the rules themselves). */
  constructor(private readonly judge?: PathJudge) {}

  add(grant: Grant): void {
    if (grant.scope === 'rule') parseRule(grant.rule ?? '', 'allow')
    this.#grants.push(grant)
  }

  /** The grant that covers this call, if any. */
  find(tool: Tool, input: unknown, cwd: string): Grant | undefined {
    return this.#grants.find((grant) => {
      if (grant.tool !== tool.name) return false
      if (grant.scope === 'tool') return true
      if (grant.scope === 'call') return grant.fingerprint === fingerprint(tool.name, input)
      const rule = parseRule(grant.rule ?? '', 'allow')
      return matchRules({ allow: [rule], ask: [], deny: [], judge: this.judge }, tool, input, cwd)?.behavior === 'allow'
    })
  }

  /** Rebuilds the grants recorded in a log. */
  static fromLog(events: Iterable<KernelEvent>, judge?: PathJudge): Grants {
    const grants = new Grants(judge)
    for (const event of events) {
      if (event.type !== 'permission.granted') continue
      const grant: Grant = { tool: event.tool, scope: event.scope }
      if (event.fingerprint !== undefined) grant.fingerprint = event.fingerprint
      if (event.rule !== undefined) grant.rule = event.rule
      grants.add(grant)
    }
    return grants
  }
}
