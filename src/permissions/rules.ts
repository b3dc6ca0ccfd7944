/**
 * Permission rules in the syntax Claude Code users write in settings.json: `Tool`,
 * `Tool(specifier)`, `mcp__server`, `mcp__server__tool`. Command specifiers (`Bash(npm test:*)`)
 * match the simple commands the shell analysis finds (src/permissions/shell); path specifiers
 * match the tool's `getPath` gitignore-style.
 */
import { ignoreRules, type Ignore } from '../util/ignore-rules.js'
import { isAbsolute, relative, resolve } from 'node:path'
import { homedir } from 'node:os'
import { RULE_FLAGS, type RuleFlag } from '../tools/call-flags.js'

/**
 * Whether the platform's file systems usually ignore letter case (macOS, Windows). Elsewhere a
 * rule for ./src must not also allow ./SRC, which is another directory there.
 */
const CASE_INSENSITIVE_FS = process.platform === 'darwin' || process.platform === 'win32'

export type RuleBehavior = 'allow' | 'ask' | 'deny'

export interface PermissionRule {
  /** The rule as written. */
  source: string
  behavior: RuleBehavior
  tool: string
  specifier?: string
  /**
   * A flag rule (`@destructive`, `@openWorld`, `@readOnly`): it names no tool, and matches every
   * call whose flag is set (decision 141). `tool` then holds the rule as written.
   */
  flag?: RuleFlag
  /**
   * An allow rule from `permissions.allowSandboxed`: it allows only a call that will run in a
   * working OS sandbox (docs/decisions/permissions.md, 156).
   */
  sandboxedOnly?: true
}

const RULE = /^([A-Za-z0-9_-]+)(?:\((.*)\))?$/s

/**
 * Parses one rule.
 *
 * @throws Error naming the rule and what is wrong with it — at createKernel, never at call time.
 */
export function parseRule(source: string, behavior: RuleBehavior): PermissionRule {
  const text = source.trim()
  if (text.startsWith('@')) return flagRule(source, text, behavior)
  const match = RULE.exec(text)
  if (match === null) {
    throw new Error(
      `permission rule ${JSON.stringify(source)} (${behavior}) does not parse: write Tool or Tool(specifier), e.g. Bash(npm run test:*) or Read(./src/**)`,
    )
  }
  const [, tool, specifier] = match as unknown as [string, string, string | undefined]
  if (specifier !== undefined && specifier.trim() === '')
    throw new Error(
      `permission rule ${JSON.stringify(source)} (${behavior}) has an empty specifier; drop the parentheses to match every call of ${tool}`,
    )
  return specifier === undefined ? { source, behavior, tool } : { source, behavior, tool, specifier: specifier.trim() }
}

/** `@destructive` and the like: a rule over what calls say about themselves, not over a tool. */
function flagRule(source: string, text: string, behavior: RuleBehavior): PermissionRule {
  const flag = RULE_FLAGS.find((name) => `@${name}` === text)
  if (flag === undefined)
    throw new Error(
      `permission rule ${JSON.stringify(source)} (${behavior}) names no flag: flag rules are ${RULE_FLAGS.map((f) => `@${f}`).join(', ')}, written alone (e.g. ask: ['@destructive'])`,
    )
  return { source, behavior, tool: text, flag }
}

/**
 * Whether the rule names this tool (mcp__server names every tool of that server). A tool is
 * matched by its name and by each of its `ruleNames` (an MCP tool's full name before it was cut
 * and hashed): a rule that names the tool as its server lists it applies to the name that runs.
 */
export function namesTool(
  rule: PermissionRule,
  tool: string | { name: string; ruleNames?: readonly string[] },
): boolean {
  if (typeof tool !== 'string') return [tool.name, ...(tool.ruleNames ?? [])].some((name) => namesTool(rule, name))
  if (rule.tool === tool) return true
  return rule.tool.startsWith('mcp__') && rule.tool.split('__').length === 2 && tool.startsWith(`${rule.tool}__`)
}

/** `path` relative to `base` with forward slashes ('' for base itself), or undefined when it lies outside. */
export function insideOf(base: string, path: string): string | undefined {
  const rel = relative(base, path)
  return rel.startsWith('..') || isAbsolute(rel) ? undefined : rel.split('\\').join('/')
}

/** A word as bash expands its leading tilde (`~`, `~/x`); any other word as it is. */
export function expandHome(word: string): string {
  return word === '~' || word.startsWith('~/') ? homedir() + word.slice(1) : word
}

/**
 * A path specifier (gitignore-style) against an absolute path. `./x` and `x` are relative to cwd,
 * `/x` absolute, `~/x` home.
 */
export function matchesPath(specifier: string, path: string, cwd: string): boolean {
  let base = cwd
  let pattern = specifier
  if (pattern.startsWith('~/')) {
    base = homedir()
    pattern = pattern.slice(2)
  } else if (pattern.startsWith('/')) {
    // Kept anchored: gitignore reads a pattern without a slash before its end at any depth, so
    // `/tmp` cut to `tmp` matched /etc/cron.d/tmp.
    base = '/'
    pattern = `/${pattern.replace(/^\/+/, '')}`
  } else if (pattern.startsWith('./')) {
    pattern = pattern.slice(2)
  }
  const rel = insideOf(base, isAbsolute(path) ? path : resolve(cwd, path))
  return rel !== undefined && rel !== '' && compiledPattern(pattern).ignores(rel)
}

/** How many paths one compiled pattern tests before it is compiled afresh, and how many are kept. */
export const PATTERN_USES = 1000
export const PATTERNS_KEPT = 64
const compiled = new Map<string, { rules: Ignore; uses: number }>()

/**
 * A pattern compiled once: compiling was most of a match (a Bash call with a Read deny rule
 * matches every name it gives, decision 90). `ignore` caches every path a rule set has tested, so
 * each is replaced after PATTERN_USES tests, and the whole map is dropped past PATTERNS_KEPT.
 */
function compiledPattern(pattern: string): Ignore {
  let entry = compiled.get(pattern)
  if (entry === undefined || entry.uses >= PATTERN_USES) {
    if (entry === undefined && compiled.size >= PATTERNS_KEPT) compiled.clear()
    entry = { rules: ignoreRules({ ignorecase: CASE_INSENSITIVE_FS }).add(pattern), uses: 0 }
    compiled.set(pattern, entry)
  }
  entry.uses++
  return entry.rules
}

/** Forgets the compiled patterns (the mutation suite's setup: a mutant may change how they are built). */
export function clearCompiledPatterns(): void {
  compiled.clear()
}
