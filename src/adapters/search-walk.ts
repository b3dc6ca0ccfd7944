/**
 * The files the built-in search reads, chosen as ripgrep chooses them (`--hidden --no-require-git`
 * and the kernel's `--glob` exclusions): .gitignore, .ignore and .rgignore in the tree and in the
 * root's parents apply, an ignored directory is never entered, symlinks inside the tree are not
 * followed, and special files (FIFOs, sockets, devices) are skipped by their directory entry type,
 * so nothing here ever opens one. A `glob` is matched the way `rg --glob` matches: gitignore-style,
 * against the file's path, and it wins over the ignore files.
 */
import ignore, { type Ignore } from 'ignore'
import type { Dirent } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { comparePaths } from './grep-format.js'

/** Directories (and files) no search enters: passed to ripgrep as `--glob !name`. */
export const ALWAYS_IGNORED = [
  '.git',
  'node_modules',
  '.hg',
  '.svn',
  '.venv',
  'venv',
  '__pycache__',
  'dist',
  'build',
  '.next',
  '.cache',
  'coverage',
  'target',
]

const SKIPPED = new Set(ALWAYS_IGNORED)
/** Later files win: .rgignore over .ignore over .gitignore, as in ripgrep. */
const IGNORE_FILES = ['.gitignore', '.ignore', '.rgignore']
/** Directories read at once. */
const WALK_CONCURRENCY = 16

/** A file to search: its path relative to the root (forward slashes) and its absolute path. */
export interface WalkedFile {
  path: string
  full: string
}

/** The rules of one directory's ignore files; `base` is that directory, absolute. */
interface Rules {
  base: string
  rules: Ignore
}

/** Every regular file under `root` the search should read, sorted by path (ripgrep's order). */
export async function walkTree(root: string, glob: string | undefined, signal?: AbortSignal): Promise<WalkedFile[]> {
  const matcher = glob === undefined ? undefined : globMatcher(glob)
  const files: WalkedFile[] = []
  const pending: Array<{ dir: string; rel: string; rules: Rules[] }> = [
    { dir: root, rel: '', rules: await parentRules(root) },
  ]
  const visit = async (task: (typeof pending)[number]): Promise<void> => {
    const entries = await readdir(task.dir, { withFileTypes: true }).catch(() => [] as Dirent[])
    const rules = [...task.rules, ...(await ownRules(task.dir, entries))]
    for (const entry of entries) {
      if (SKIPPED.has(entry.name)) continue
      const rel = task.rel === '' ? entry.name : `${task.rel}/${entry.name}`
      const full = join(task.dir, entry.name)
      if (entry.isDirectory()) {
        if (matcher?.prunes(rel) !== true && !ignored(full, true, rules)) pending.push({ dir: full, rel, rules })
      } else if (entry.isFile() && wanted(full, rel, rules, matcher)) files.push({ path: rel, full })
      // Anything else is a symlink (not followed, as ripgrep does not) or a special file.
    }
  }
  while (pending.length > 0) {
    signal?.throwIfAborted()
    await Promise.all(pending.splice(0, WALK_CONCURRENCY).map(visit))
  }
  return files.sort((a, b) => comparePaths(a.path, b.path))
}

function wanted(full: string, rel: string, rules: Rules[], matcher: GlobMatcher | undefined): boolean {
  const verdict = matcher?.file(rel)
  return verdict ?? !ignored(full, false, rules)
}

/** Git's precedence: the deepest directory whose rules decide (ignore or re-include) wins. */
function ignored(full: string, isDir: boolean, rules: Rules[]): boolean {
  for (let i = rules.length - 1; i >= 0; i--) {
    const { base, rules: r } = rules[i] as Rules
    const rel = full.slice(base.length + 1) + (isDir ? '/' : '')
    const verdict = r.test(rel)
    if (verdict.ignored) return true
    if (verdict.unignored) return false
  }
  return false
}

async function ownRules(dir: string, entries: Dirent[]): Promise<Rules[]> {
  const present = IGNORE_FILES.filter((name) => entries.some((e) => e.name === name && e.isFile()))
  return present.length === 0 ? [] : rulesFrom(dir, present)
}

async function rulesFrom(dir: string, names: string[]): Promise<Rules[]> {
  const texts = await Promise.all(names.map((name) => readFile(join(dir, name), 'utf8').catch(() => '')))
  if (texts.every((t) => t === '')) return []
  // One add per file: an array element is taken as a single pattern, not split into lines.
  return [{ base: dir === '/' ? '' : dir, rules: texts.reduce((rules, text) => rules.add(text), ignore()) }]
}

/**
 * The ignore files of the root's parents, outermost first: ripgrep reads them too. Each is read
 * by name (a missing one costs a failed open), never by listing the directory: a parent such as
 * /tmp may hold tens of thousands of entries.
 */
async function parentRules(root: string): Promise<Rules[]> {
  const dirs: string[] = []
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    dirs.unshift(dir)
    if (dirname(dir) === dir) break
  }
  return (await Promise.all(dirs.map((dir) => rulesFrom(dir, IGNORE_FILES)))).flat()
}

interface GlobMatcher {
  /** For a file: true to search it, false to skip it, undefined to let the ignore files decide. */
  file(rel: string): boolean | undefined
  /** For a directory: whether an exclusion (`!glob`) keeps the search out of it. */
  prunes(rel: string): boolean
}

/** `rg --glob` semantics: a match includes a file whatever the ignore files say; `!glob` excludes. */
export function globMatcher(glob: string): GlobMatcher {
  const negated = glob.startsWith('!')
  const patterns = expandBraces(negated ? glob.slice(1) : glob).map(gitignoreGlob)
  const matches = (rel: string, isDir: boolean): boolean =>
    patterns.some((p) => (isDir || !p.dirOnly) && p.regex.test(rel))
  return negated
    ? { file: (rel) => (matches(rel, false) ? false : undefined), prunes: (rel) => matches(rel, true) }
    : { file: (rel) => matches(rel, false), prunes: () => false }
}

/** `a{b,c}d` → `abd`, `acd` (nested braces too). */
export function expandBraces(glob: string): string[] {
  const open = glob.indexOf('{')
  if (open === -1) return [glob]
  let depth = 0
  const commas: number[] = []
  for (let i = open; i < glob.length; i++) {
    const c = glob[i]
    if (c === '{') depth++
    else if (c === '}' && --depth === 0) {
      const bounds = [open, ...commas, i]
      const parts = bounds.slice(0, -1).map((at, k) => glob.slice(at + 1, bounds[k + 1]))
      const rest = expandBraces(glob.slice(i + 1))
      const head = glob.slice(0, open)
      return parts.flatMap((part) => expandBraces(part).flatMap((p) => rest.map((r) => `${head}${p}${r}`)))
    } else if (c === ',' && depth === 1) commas.push(i)
  }
  return [glob]
}

/**
 * A gitignore-style glob as a regular expression over a relative path: without a slash it matches
 * the name at any depth; `*` and `?` stay within a name, `**` crosses directories.
 */
export function gitignoreGlob(glob: string): { regex: RegExp; dirOnly: boolean } {
  const dirOnly = glob.endsWith('/')
  let body = dirOnly ? glob.slice(0, -1) : glob
  const anchored = body.includes('/')
  if (body.startsWith('/')) body = body.slice(1)
  let source = ''
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string
    if (c === '*' && body[i + 1] === '*') {
      const slashAfter = body[i + 2] === '/'
      source += slashAfter ? '(?:.*/)?' : '.*'
      i += slashAfter ? 2 : 1
    } else if (c === '*') source += '[^/]*'
    else if (c === '?') source += '[^/]'
    else if (c === '[') {
      const close = body.indexOf(']', i + 2)
      if (close === -1) source += '\\['
      else {
        const inner = body.slice(i + 1, close)
        source += `[${inner.startsWith('!') ? `^${inner.slice(1)}` : inner}]`
        i = close
      }
    } else if (c === '\\' && i + 1 < body.length) source += `\\${body[++i] as string}`
    else source += c.replace(/[.+^${}()|\\]/g, '\\$&')
  }
  return { regex: new RegExp(`${anchored ? '^' : '(?:^|/)'}${source}$`), dirOnly }
}
