/**
 * Configuration given to git on its command line (`git -c name=value`, `--config-env=name=VAR`).
 * Some configuration is a command git runs through the shell: an alias whose value starts with
 * `!`, `core.pager`, `core.editor`, `sequence.editor`, `core.sshCommand`, `pager.<cmd>`. Those
 * values are analysed as scripts, as `bash -c` is, so a rule about `rm` is about the `rm` in
 * `git -c alias.x='!rm V' x`. A key that is not known to be harmless (it may name a program, a
 * hook directory or a file of more configuration) makes the command unknown.
 */
import { SELF, unknown } from './peeled.js'
import type { Peeled, Peeler, Script } from './peeled.js'
import { isDynamic } from './words.js'
import type { Word } from './words.js'

/** Global options whose value is the next word (or follows `=`). */
const WITH_VALUE = new Set(['-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--attr-source'])

/** Keys (lower case) whose value git runs as a shell command. */
const SHELL_KEYS = /^(core\.(pager|editor|sshcommand)|sequence\.editor|pager\.[^.]+)$/

/**
 * Keys (lower case) that only select behaviour: they name no program, hook, filter, helper or
 * file to include. Any other key given on the command line is unknown.
 */
const HARMLESS_KEYS = new RegExp(
  [
    '^(user|author|committer|color|advice|column|i18n|status)\\.',
    '^core\\.(quotepath|autocrlf|safecrlf|eol|filemode|ignorecase|precomposeunicode|abbrev|whitespace)$',
    '^core\\.(commentchar|commentstring|longpaths|symlinks|untrackedcache|preloadindex|logallrefupdates)$',
    '^(init\\.defaultbranch|commit\\.gpgsign|tag\\.gpgsign|pull\\.rebase|pull\\.ff|push\\.default)$',
    '^(push\\.autosetupremote|merge\\.conflictstyle|merge\\.ff|rebase\\.autosquash|rebase\\.autostash)$',
    '^(fetch\\.prune|gc\\.auto|maintenance\\.auto|protocol\\.file\\.allow|log\\.[a-z]+)$',
    '^diff\\.(noprefix|renames|algorithm|colormoved|mnemonicprefix|relative|context|statgraphwidth)$',
  ].join('|'),
)

/** One `-c name=value` (value undefined for `--config-env`, whose value is in the environment). */
interface Setting {
  readonly option: '-c' | '--config-env'
  /** The key as written, and lower-cased as git compares it. */
  readonly written: string
  readonly key: string
  readonly value: string | undefined
}

interface Globals {
  readonly settings: readonly Setting[]
  /** Index of the subcommand word (words.length if there is none). */
  readonly subcommand: number
}

/**
 * `git [global options] subcommand …`: git itself runs, and so does every shell command its
 * command-line configuration names.
 *
 * @example
 * git(words("git -c alias.x='!rm V' x")) // also runs the script `rm V`, via 'git -c alias'
 */
export const git: Peeler = (words) => {
  const globals = readGlobals(words)
  if (typeof globals === 'string') return unknown(globals)
  const scripts: Script[] = []
  for (const setting of globals.settings) {
    const found = classify(setting, words, globals.subcommand)
    if (typeof found === 'string') return unknown(found)
    if (found !== undefined) scripts.push(found)
  }
  return scripts.length === 0 ? SELF : ({ kind: 'also', via: 'git', inner: [], scripts } satisfies Peeled)
}

/** Reads git's global options, up to the subcommand, as git's handle_options does. */
function readGlobals(words: readonly Word[]): Globals | string {
  const settings: Setting[] = []
  for (let i = 1; i < words.length; i++) {
    const word = words[i] as Word
    // A computed word here could expand into `-c alias.x=…` (or be the subcommand that runs one).
    if (isDynamic(word)) return `an option of git is computed at run time (${word.raw})`
    const text = word.value
    if (!text.startsWith('-')) return { settings, subcommand: i }
    if (text.startsWith('--exec-path=')) return 'git --exec-path changes where git finds the programs it runs'
    const [name, attached] = splitOption(text)
    if (name === '-c' || name === '--config-env') {
      const value = attached ?? words[++i]?.value
      const next = words[i]
      if (attached === undefined && next !== undefined && isDynamic(next)) {
        return `the configuration given to git ${name} is computed at run time (${next.raw})`
      }
      if (value !== undefined) settings.push(setting(name, value))
    } else if (WITH_VALUE.has(name) && attached === undefined) {
      const value = words[++i]
      // A double-quoted value is one word whatever it expands to: it cannot become an option.
      if (value !== undefined && isDynamic(value) && !/^"[^"]*"$/.test(value.raw)) {
        return `the value of git ${name} is computed at run time (${value.raw}) and could add options`
      }
    }
  }
  return { settings, subcommand: words.length }
}

/** `--name=value` is `['--name', 'value']`; `-cname=value` is `['-c', 'name=value']`. */
function splitOption(text: string): [string, string | undefined] {
  if (text.startsWith('--')) {
    const eq = text.indexOf('=')
    return eq < 0 ? [text, undefined] : [text.slice(0, eq), text.slice(eq + 1)]
  }
  if (text.startsWith('-c') && text.length > 2) return ['-c', text.slice(2)]
  return [text, undefined]
}

function setting(option: '-c' | '--config-env', text: string): Setting {
  const eq = text.indexOf('=')
  const written = eq < 0 ? text : text.slice(0, eq)
  // `-c name` alone sets the boolean true; `--config-env` names a variable, not the value.
  const value = option === '--config-env' ? undefined : eq < 0 ? 'true' : text.slice(eq + 1)
  return { option, written, key: written.toLowerCase(), value }
}

/** The script a setting makes git run, why it cannot be analysed, or undefined if harmless. */
function classify(setting: Setting, words: readonly Word[], subcommand: number): Script | string | undefined {
  const { option, written, key, value } = setting
  if (key.startsWith('alias.')) return aliasScript(setting, words, subcommand)
  if (SHELL_KEYS.test(key)) {
    if (value === undefined) return `git ${option} sets ${written}, a command git runs, from the environment`
    return { via: `git -c ${key}`, source: value }
  }
  if (HARMLESS_KEYS.test(key)) return undefined
  return `git ${option} sets ${written}, which can name a program git runs or more configuration to load`
}

/**
 * An alias whose value starts with `!` is a shell command: git runs `sh -c 'VALUE "$@"'` with
 * the words after the alias name, so they are appended to the script. Any other alias expands
 * into git arguments (options that set more configuration among them): unknown.
 */
function aliasScript(setting: Setting, words: readonly Word[], subcommand: number): Script | string {
  const { option, value } = setting
  const name = setting.key.slice('alias.'.length)
  if (value === undefined) return `git ${option} sets the alias ${name} from the environment, which is not analysed`
  if (!value.startsWith('!')) return `the git alias ${name} expands to git arguments (${value}), which are not analysed`
  const invoked = words[subcommand]?.value.toLowerCase() === name
  const args = invoked ? words.slice(subcommand + 1).map(shellWord) : []
  return { via: 'git -c alias', source: [value.slice(1), ...args].join(' ') }
}

/** A word as shell text that yields it again: quoted if literal, as written if computed. */
function shellWord(word: Word): string {
  return isDynamic(word) ? word.raw : `'${word.value.replace(/'/g, `'\\''`)}'`
}
