/**
 * Which git command lines only read: a short list of subcommands, without the global options
 * that set configuration (configuration names programs: core.pager, core.fsmonitor, diff.external)
 * and without the subcommand options that write files or run programs.
 */
import { findForbidden } from './read-only.checks.js'
import type { Forbidden } from './read-only.checks.js'

/** Global options that take a value in the next word (or after `=`) and are harmless. */
const GLOBAL_WITH_VALUE = new Set(['-C', '--git-dir', '--work-tree', '--namespace'])
const GLOBAL_FLAGS = new Set([
  '--no-pager',
  '-P',
  '--bare',
  '--no-replace-objects',
  '--literal-pathspecs',
  '--glob-pathspecs',
  '--noglob-pathspecs',
  '--icase-pathspecs',
  '--no-optional-locks',
  '--no-lazy-fetch',
  '--no-advice',
])
const GLOBAL_FORBIDDEN: Readonly<Record<string, string>> = {
  '-c': 'git -c sets configuration, which can name a program to run (core.pager, core.fsmonitor)',
  '--config-env': 'git --config-env sets configuration, which can name a program to run',
  '--exec-path': 'git --exec-path changes where git finds the programs it runs',
  '-p': 'git -p forces a pager, which is a program git runs',
  '--paginate': 'git --paginate forces a pager, which is a program git runs',
}

const SUBCOMMANDS = new Set([
  'status',
  'log',
  'diff',
  'show',
  'rev-parse',
  'ls-files',
  'blame',
  'grep',
  'shortlog',
  'describe',
  'cat-file',
  'ls-tree',
  'branch',
])

/** Options no read-only subcommand may carry (git accepts unambiguous prefixes: `--outp`). */
const SUB_FORBIDDEN: readonly Forbidden[] = [
  { option: '--output', reason: 'git --output writes its output to a file' },
  { option: '--ext-diff', reason: 'git --ext-diff runs an external diff program' },
  { option: '--textconv', reason: 'git --textconv runs the configured text conversion programs' },
  { option: '--filters', reason: 'git cat-file --filters runs the configured filter programs' },
  { option: '--exec', reason: 'git --exec runs a program' },
  { option: '--open-files-in-pager', reason: 'git grep --open-files-in-pager runs a pager program' },
]
const GREP_FORBIDDEN: readonly Forbidden[] = [
  { option: '-O', reason: 'git grep -O opens the matching files in a pager program it runs' },
]

const BRANCH_LISTING =
  /^(-a|--all|-r|--remotes|-l|--list|-v|-vv|--verbose|--show-current|-i|--ignore-case|--no-color|--color(=.*)?|--no-column|--column(=.*)?|--sort=.*|--format=.*|--contains(=.*)?|--no-contains(=.*)?|--merged(=.*)?|--no-merged(=.*)?|--points-at=.*|--abbrev=.*|--no-abbrev)$/

/** Why `git <args>` is not read-only, or undefined when it is. */
export function gitVerdict(args: readonly string[]): string | undefined {
  let i = 0
  for (; i < args.length; i++) {
    const arg = args[i] ?? ''
    if (!arg.startsWith('-')) break
    const name = arg.split('=')[0] ?? arg
    // `-c` also takes its value attached (`-ccore.pager=sh`).
    const forbidden = GLOBAL_FORBIDDEN[/^-c./.test(arg) ? '-c' : name]
    if (forbidden !== undefined) return forbidden
    if (arg === '--version' || arg === '--help') return undefined
    if (GLOBAL_WITH_VALUE.has(name)) {
      if (!arg.includes('=')) i++
    } else if (!GLOBAL_FLAGS.has(arg)) return `git option ${arg} is not on the read-only list`
  }
  const subcommand = args[i]
  if (subcommand === undefined) return 'git needs a read-only subcommand'
  if (!SUBCOMMANDS.has(subcommand)) return `git ${subcommand} is not on the read-only list`
  return subcommandVerdict(subcommand, args.slice(i + 1))
}

function subcommandVerdict(subcommand: string, rest: readonly string[]): string | undefined {
  const forbidden = findForbidden(rest, subcommand === 'grep' ? [...SUB_FORBIDDEN, ...GREP_FORBIDDEN] : SUB_FORBIDDEN, {
    abbreviations: true,
  })
  if (forbidden !== undefined) return forbidden
  if (subcommand !== 'branch') return undefined
  const listing = rest.includes('-l') || rest.includes('--list')
  const other = rest.find((arg) => !BRANCH_LISTING.test(arg) && (arg.startsWith('-') || !listing))
  return other === undefined ? undefined : `git branch ${other} can create, rename or delete branches`
}
