/**
 * The Read rules over the files a shell command names (decision 90). The read-only verdict judges
 * a command by its letters alone; this judges the names in it where they resolve, when the call is
 * decided: a Read deny rule denies a command that names a file it covers, and a command that may
 * read a denied file without naming it (a reader's glob, `grep -r`) asks.
 */
import { candidates, type PathJudge } from './paths.js'
import { expandHome, insideOf } from './rules.js'
import { readDenyRule, readDenyRules, type RuleSet } from './ruleset.js'
import { analyzeCommand, namedReads } from './shell/index.js'

export interface CommandReads {
  /** Why a Read deny rule denies the command, if one does. */
  readonly deny?: string
  /** Why the command must ask whatever a rule allows, if it must. */
  readonly ask?: string
}

export function commandReads(command: string, rules: RuleSet, judge: PathJudge | undefined, cwd: string): CommandReads {
  const analysis = analyzeCommand(command)
  if (analysis.kind === 'unknown') return {}
  const { words, unnamed } = namedReads(analysis.commands)
  const readRules = readDenyRules(rules)
  if (readRules.length > 0) {
    for (const word of words) {
      const rule = readDenyRule(rules, expandHome(word), cwd)
      if (rule !== undefined) return { deny: `the rule ${rule.source} denies reading ${word}, which the command names` }
    }
    if (unnamed !== undefined) {
      const named = readRules.map((rule) => rule.source).join(', ')
      return {
        ask: `${unnamed}, which could include a file the rules deny reading (${named}); the Read, Grep and Glob tools keep to those rules`,
      }
    }
  }
  if (judge === undefined) return {}
  for (const word of words) {
    const reason = linkReason(judge, word)
    if (reason !== undefined) return { ask: reason }
  }
  return {}
}

/**
 * Why a name must ask: a symbolic link takes it into /proc (`README -> /proc/self/environ` in a
 * cloned repository), which the read-only check, judging letters, let through; or it cannot be
 * followed (a loop). Names written in /proc or /dev are that check's business already.
 */
function linkReason(judge: PathJudge, word: string): string | undefined {
  const { lexical, real } = candidates(judge, expandHome(word))
  if (real === undefined) return `${word} is a symbolic link that cannot be followed`
  const below = (dir: string, path: string): boolean => insideOf(dir, path) !== undefined
  if (below('/proc', real) && !below('/proc', lexical) && !below('/dev', lexical))
    return `${word} leads through a symbolic link into /proc, where process environments are`
  return undefined
}
