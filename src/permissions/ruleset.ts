/** A set of allow / ask / deny rules, checked against one call. */
import { dirname } from 'node:path'
import { guarded } from '../util/guarded.js'
import type { Tool } from '../tools/tool.types.js'
import type { CallFlags, RuleFlag } from '../tools/call-flags.js'
import { analyzeCommand, commandsForRules, covers, denyMatches } from './shell/index.js'
import { candidates, realCwd, type PathJudge } from './paths.js'
import { domainProblem, matchesDomain } from './domains.js'
import { insideOf, matchesPath, namesTool, parseRule, type PermissionRule, type RuleBehavior } from './rules.js'
import { MCP_RESOURCE_TOOLS } from '../events/mcp-resource-names.js'

export interface RuleConfig {
  allow?: readonly string[]
  ask?: readonly string[]
  deny?: readonly string[]
  /**
   * Allow rules that allow a call only when it will run in the OS sandbox (`createKernel({ sandbox })`
   * with a mode other than `off` for the tool, and the sandbox working on this machine); otherwise
   * they allow nothing and the call asks as it would without them. Only for tools whose commands
   * run in the sandbox (Bash): `allowSandboxed: ['Bash']` is Claude Code's `autoAllowBashIfSandboxed`.
   */
  allowSandboxed?: readonly string[] | undefined
}

/**
 * Whether a tool's calls will run in the OS sandbox (docs/decisions/permissions.md, 156): its mode
 * is not `off`, and its sandbox's check of the machine has not failed. A call it allows while the
 * check is still running fails closed if the check fails: it never runs unsandboxed.
 */
export interface SandboxedCalls {
  runs(tool: string): boolean
}

export interface RuleSet {
  readonly allow: readonly PermissionRule[]
  readonly ask: readonly PermissionRule[]
  readonly deny: readonly PermissionRule[]
  /** Resolves where paths point; without it, path rules see only the path as written. */
  readonly judge?: PathJudge | undefined
  /**
   * A child session's parent rules (docs/subagents.md): an allow rule here allows a call only
   * when the parent's rules allow it too — allow rules intersect.
   */
  readonly within?: RuleSet | undefined
  /** Where `allowSandboxed` rules learn whether a call will run sandboxed; without it they allow nothing. */
  readonly sandboxed?: SandboxedCalls | undefined
}

export interface RuleMatch {
  behavior: RuleBehavior
  rule: string
  /** An allow that holds because the call runs in the OS sandbox (`allowSandboxed`). */
  sandboxed?: true
}

/**
 * Parses every rule and checks that it can match: it names a tool of this kernel by its
 * canonical name (or an MCP server's tools, which may connect later), and its specifier is one
 * the tool takes.
 *
 * @throws Error for a rule that does not parse or cannot match, naming the fix.
 */
export function compileRules(config: RuleConfig = {}, tools: readonly Tool[] = [], judge?: PathJudge): RuleSet {
  const compile = (behavior: RuleBehavior) =>
    (config[behavior] ?? []).map((source) => {
      if (typeof source !== 'string')
        throw new Error(`permissions.${behavior} must list rule strings, got ${JSON.stringify(source)}`)
      const rule = parseRule(source, behavior)
      const problem = ruleProblem(rule, tools)
      if (problem !== undefined) throw new Error(`permission rule ${JSON.stringify(source)} (${behavior}) ${problem}`)
      return rule
    })
  const sandboxed = (config.allowSandboxed ?? []).map((source) => sandboxedRule(source, tools))
  return { allow: [...compile('allow'), ...sandboxed], ask: compile('ask'), deny: compile('deny'), judge }
}

/** One `allowSandboxed` rule: an allow rule, for a tool whose commands run in the sandbox. */
function sandboxedRule(source: unknown, tools: readonly Tool[]): PermissionRule {
  const where = `permission rule ${JSON.stringify(source)} (allowSandboxed)`
  if (typeof source !== 'string')
    throw new Error(`permissions.allowSandboxed must list rule strings, got ${JSON.stringify(source)}`)
  const rule = parseRule(source, 'allow')
  if (rule.flag !== undefined)
    throw new Error(`${where} is a flag rule: the sandbox bounds commands, so name the tool, e.g. Bash(make test)`)
  const problem = ruleProblem(rule, tools)
  if (problem !== undefined) throw new Error(`${where} ${problem}`)
  const tool = tools.find((t) => t.name === rule.tool) ?? tools.find((t) => t.ruleNames?.includes(rule.tool))
  if (tool === undefined || !isCommandTool(tool))
    throw new Error(
      `${where} names ${rule.tool}, whose calls do not run in the OS sandbox: only tools that run commands there (${
        tools
          .filter(isCommandTool)
          .map((t) => t.name)
          .join(', ') || 'none in this kernel'
      }) can be allowed when sandboxed; put the rule in allow instead`,
    )
  return { ...rule, sandboxedOnly: true }
}

/** Why a rule can never match a call of these tools, or undefined when it can. */
function ruleProblem(rule: PermissionRule, tools: readonly Tool[]): string | undefined {
  // A flag rule names no tool: any tool's call may carry the flag (parseRule checked the name).
  if (rule.flag !== undefined) return undefined
  // An MCP tool has no path or command, so a specifier could never match: refused, not ignored.
  if (rule.tool.startsWith('mcp__'))
    return rule.specifier === undefined
      ? undefined
      : `has a specifier, but MCP tools take none; write ${rule.tool} alone`
  // A tool known by other names (MultiEdit by Edit's rules) makes those names' rules match too.
  const tool = tools.find((t) => t.name === rule.tool) ?? tools.find((t) => t.ruleNames?.includes(rule.tool))
  // The MCP resource tools come with an MCP source, which may connect later (docs/decisions/mcp.md).
  if (tool === undefined && MCP_RESOURCE_TOOLS.includes(rule.tool))
    return rule.specifier === undefined
      ? undefined
      : `has a specifier, but ${rule.tool} takes none; write ${rule.tool} alone`
  if (tool === undefined && readRuleReaches(rule, tools)) return undefined
  if (tool === undefined) {
    const owner = tools.find((t) => t.aliases.includes(rule.tool))
    if (owner !== undefined) {
      const fixed = rule.specifier === undefined ? owner.name : `${owner.name}(${rule.specifier})`
      return `names ${rule.tool}, an alias of ${owner.name}: rules use canonical names, so write ${fixed}`
    }
    return `names no tool of this kernel (${tools.map((t) => t.name).join(', ') || 'none'}), so it could never match`
  }
  if (rule.specifier === undefined) return undefined
  if (tool.getHost !== undefined) return domainProblem(tool.name, rule.specifier)
  if (!isCommandTool(tool) && tool.getPath === undefined)
    return `has a specifier, but ${tool.name} takes no specifier (it has no path or command); write ${tool.name} alone`
  if (!isCommandTool(tool) && /[()]/.test(rule.specifier)) return 'has parentheses inside its path specifier'
  return undefined
}

/**
 * A Read path rule also governs other tools (appliesTo, and command-reads for Bash): a deny or ask
 * rule the search tools, a deny rule the names a shell command gives. It can match without Read.
 */
function readRuleReaches(rule: PermissionRule, tools: readonly Tool[]): boolean {
  if (rule.tool !== 'Read' || rule.specifier === undefined || rule.behavior === 'allow') return false
  return tools.some((t) => t.category === 'search' || (rule.behavior === 'deny' && isCommandTool(t)))
}

/** A tool whose input carries a shell command (Bash declares `shellCommand`). */
const isCommandTool = (tool: Tool): boolean => tool.shellCommand !== undefined

/**
 * The rule that decides this call: deny beats ask beats allow. `flags` gives the call's flags
 * for `@flag` rules (asked only when such a rule exists); without it no flag rule matches.
 */
export function matchRules(
  rules: RuleSet,
  tool: Tool,
  input: unknown,
  cwd: string,
  flags?: () => CallFlags,
): RuleMatch | undefined {
  for (const behavior of ['deny', 'ask'] as const) {
    const hit = rules[behavior].find((rule) =>
      rule.flag === undefined ? matchesAny(rule, tool, input, cwd, rules.judge) : flagged(rule.flag, flags),
    )
    if (hit !== undefined) return { behavior, rule: hit.source }
  }
  const flagAllow = rules.allow.find((rule) => rule.flag !== undefined && flagged(rule.flag, flags))
  if (flagAllow !== undefined) return { behavior: 'allow', rule: flagAllow.source }
  const usable = rules.allow.filter((rule) => rule.sandboxedOnly !== true || rules.sandboxed?.runs(tool.name) === true)
  const allowed = allowedBy(usable, tool, input, cwd, rules.judge)
  if (allowed === undefined) return undefined
  if (rules.within !== undefined && matchRules(rules.within, tool, input, cwd)?.behavior !== 'allow') return undefined
  const sandboxed = usable.some((rule) => rule.sandboxedOnly === true && allowed.split(', ').includes(rule.source))
  return sandboxed ? { behavior: 'allow', rule: allowed, sandboxed } : { behavior: 'allow', rule: allowed }
}

function flagged(flag: RuleFlag, flags: (() => CallFlags) | undefined): boolean {
  return flags !== undefined && flags()[flag]
}

/** Deny and ask rules match a compound command when any part (or the whole) matches. */
function matchesAny(rule: PermissionRule, tool: Tool, input: unknown, cwd: string, judge?: PathJudge): boolean {
  if (!appliesTo(rule, tool)) return false
  if (rule.specifier === undefined) return namesTool(rule, tool)
  if (tool.getHost !== undefined) return hostMatches(rule.specifier, tool, input)
  const command = commandOf(tool, input)
  if (command !== undefined) return denyMatches(rule.specifier, analyzeCommand(command))
  const path = pathOf(tool, input)
  return path !== undefined && pathMatches(rule.specifier, path, cwd, judge, 'any')
}

/**
 * A deny or ask rule for the tool itself, or a Read rule for a search tool: what may not be read
 * may not be searched either (Grep and Glob over a denied path are denied too). A Read rule
 * without a path names Read only (matchesAny); allow rules never come here (allowedBy).
 */
function appliesTo(rule: PermissionRule, tool: Tool): boolean {
  return namesTool(rule, tool) || (rule.tool === 'Read' && tool.category === 'search')
}

/**
 * A path specifier against the path as written and where it points (relative specifiers to the
 * working directory and to its real location): `any` for deny and ask rules, `both` for allow.
 */
function pathMatches(
  spec: string,
  path: string,
  cwd: string,
  judge: PathJudge | undefined,
  need: 'any' | 'both',
): boolean {
  if (judge === undefined) return matchesPath(spec, path, cwd)
  const { lexical, real } = candidates(judge, path)
  const lexicalHit = matchesPath(spec, lexical, cwd)
  if (real === undefined) return need === 'any'
  const realHit = matchesPath(spec, real, realCwd(judge, cwd)) || matchesPath(spec, real, cwd)
  return need === 'any' ? lexicalHit || realHit : lexicalHit && realHit
}

/**
 * An allow rule matches a compound command only if every simple command it executes is allowed
 * (by one allow rule or another) and none writes through a redirection; a command the shell
 * analysis cannot follow fully is never allowed by a specifier rule.
 */
function allowedBy(
  rules: readonly PermissionRule[],
  tool: Tool,
  input: unknown,
  cwd: string,
  judge?: PathJudge,
): string | undefined {
  const mine = rules.filter((r) => namesTool(r, tool))
  // No allow rule names the tool: nothing to match, so the command's parts are not prepared.
  if (mine.length === 0) return undefined
  const whole = mine.find((r) => r.specifier === undefined)
  if (whole !== undefined) return whole.source
  if (tool.getHost !== undefined) return mine.find((r) => hostMatches(r.specifier as string, tool, input))?.source
  const command = commandOf(tool, input)
  if (command !== undefined) {
    const commands = commandsForRules(analyzeCommand(command))
    if (commands.kind === 'unknown' || commands.commands.length === 0) return undefined
    // Every rule left has a specifier: a rule without one has allowed the call above.
    const used = commands.commands.map((c) =>
      c.notAllowable === undefined ? mine.find((r) => covers(r.specifier as string, c)) : undefined,
    )
    return used.every((r) => r !== undefined)
      ? [...new Set(used.map((r) => (r as PermissionRule).source))].join(', ')
      : undefined
  }
  const path = pathOf(tool, input)
  if (path === undefined) return undefined
  return mine.find((r) => pathMatches(r.specifier as string, path, cwd, judge, 'both'))?.source
}

/** Whether a deny rule for Read matches this path (as written or where it points). */
export function readDenied(rules: RuleSet, path: string, cwd: string): boolean {
  return readDenyRule(rules, path, cwd) !== undefined
}

/** The deny rules for Read that name paths (`Read(./.env)`; a bare `Read` is the tool's rule). */
export function readDenyRules(rules: RuleSet): (PermissionRule & { specifier: string })[] {
  return rules.deny.filter(
    (rule): rule is PermissionRule & { specifier: string } => rule.tool === 'Read' && rule.specifier !== undefined,
  )
}

/** The first deny rule for Read that matches this path (as written or where it points). */
export function readDenyRule(rules: RuleSet, path: string, cwd: string): PermissionRule | undefined {
  return readDenyRules(rules).find((rule) => pathMatches(rule.specifier, path, cwd, rules.judge, 'any'))
}

/** The shell command a call carries (the tool's `shellCommand`), undefined when none or it throws. */
export function commandOf(tool: Tool, input: unknown): string | undefined {
  const command = guarded(() => tool.shellCommand?.(input), undefined)
  return typeof command === 'string' ? command : undefined
}

/** A `domain:` specifier against the host the call reaches (the tool's `getHost`); no host, no match. */
function hostMatches(specifier: string, tool: Tool, input: unknown): boolean {
  const host = hostOf(tool, input)
  return host !== undefined && matchesDomain(specifier, host)
}

/** The host a call reaches (the tool's `getHost`), undefined when it has none or the tool throws. */
export function hostOf(tool: Tool, input: unknown): string | undefined {
  const host = guarded(() => tool.getHost?.(input), undefined)
  return typeof host === 'string' && host !== '' ? host : undefined
}

/** The path a call refers to (the tool's `getPath`), undefined when it has none or the tool throws. */
export function pathOf(tool: Tool, input: unknown): string | undefined {
  return guarded(() => tool.getPath?.(input), undefined)
}

const MULTI_WORD = new Set([
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'git',
  'cargo',
  'go',
  'pip',
  'docker',
  'kubectl',
  'make',
  'bun',
  'deno',
])

/** Rules a user might add to allow this call next time (shown with an "ask"). */
export function suggestRules(tool: Tool, input: unknown, cwd: string): string[] {
  const host = hostOf(tool, input)
  if (host !== undefined) return [`${tool.name}(domain:${host})`]
  const command = commandOf(tool, input)
  if (command !== undefined) {
    const first = commandsForRules(analyzeCommand(command))
    const words = first.kind === 'known' ? (first.commands[0]?.line.split(' ') ?? []) : []
    if (words.length === 0) return []
    // `npm run test`, `git commit`: the subcommand is part of what the user would allow.
    const prefix = words.slice(0, MULTI_WORD.has(words[0] as string) ? 2 : 1).join(' ')
    return [`${tool.name}(${prefix}:*)`, `${tool.name}(${command})`]
  }
  const path = pathOf(tool, input)
  if (path !== undefined) {
    const dir = dirname(path)
    const rel = insideOf(cwd, dir)
    if (rel === undefined) return [`${tool.name}(${dir}/**)`]
    return rel === '' ? [`${tool.name}(./**)`] : [`${tool.name}(./${rel}/**)`]
  }
  return [tool.name]
}

/** A tool a deny rule names without a specifier: never offered to the model. */
export function deniedOutright(rules: RuleSet, tool: Tool): boolean {
  return rules.deny.some((rule) => rule.specifier === undefined && namesTool(rule, tool))
}
