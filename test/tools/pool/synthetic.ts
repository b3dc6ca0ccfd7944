/** Synthetic registries for the pool tests: realistic names, descriptions and parameters, deterministic. */
import { z } from 'zod'
import { buildTool, type Tool } from '../../../src/index.js'

const VERBS = ['create', 'list', 'get', 'update', 'delete', 'search', 'send', 'archive', 'merge', 'export']
const NOUNS = ['issue', 'pullRequest', 'message', 'channel', 'invoice', 'customer', 'ticket', 'file', 'event', 'report']
const SERVERS = ['github', 'slack', 'stripe', 'jira', 'drive', 'calendar', 'linear', 'notion']

/** The i-th synthetic tool: `mcp__<server>__<verb>_<noun><i>`, deferrable unless `defer` is false. */
export interface SyntheticOptions {
  defer?: boolean
  hint?: string
  alwaysLoad?: boolean
  enabled?: boolean
  modes?: string[]
}

export function syntheticTool(i: number, options: SyntheticOptions = {}): Tool {
  const server = SERVERS[i % SERVERS.length] as string
  const verb = VERBS[Math.floor(i / SERVERS.length) % VERBS.length] as string
  const noun = NOUNS[Math.floor(i / (SERVERS.length * VERBS.length)) % NOUNS.length] as string
  const name = `mcp__${server}__${verb}_${noun}${i}`
  return buildTool({
    name,
    description: () => `${verb} a ${noun} in ${server}`,
    prompt: () =>
      `${verb[0]?.toUpperCase()}${verb.slice(1)}s a ${noun} in ${server}. Use it when the user asks to ${verb} ` +
      `a ${noun}; it needs the ${noun} id and returns the ${noun} as JSON. Errors name the missing field.`,
    ...(options.hint !== undefined ? { searchHint: options.hint } : {}),
    inputSchema: z.strictObject({
      id: z.string().describe(`The ${noun} id`),
      note: z.string().describe(`A note for the ${noun}`).optional(),
    }),
    shouldDefer: options.defer ?? true,
    ...(options.alwaysLoad !== undefined ? { alwaysLoad: options.alwaysLoad } : {}),
    ...(options.enabled !== undefined ? { isEnabled: () => options.enabled as boolean } : {}),
    ...(options.modes !== undefined ? { modes: options.modes } : {}),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    async call({ id }) {
      return `${name}(${id})`
    },
  })
}

export function syntheticTools(count: number, options: { defer?: boolean } = {}): Tool[] {
  return Array.from({ length: count }, (_, i) => syntheticTool(i, options))
}
