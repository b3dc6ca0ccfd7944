/**
 * The files the built-in search reads, chosen as ripgrep chooses them (`--hidden --no-require-git`
 * and the kernel's `--glob` exclusions): .gitignore, .ignore and .rgignore in the tree and in the
 * root's parents apply, an ignored directory is never entered, symlinks inside the tree are not
 * followed, and special files (FIFOs, sockets, devices) are skipped by their directory entry type,
 * so nothing here ever opens one. A `glob` is matched the way `rg --glob` matches: gitignore-style,
 * against the file's path, and it wins over the ignore files.
 */
import { ignoreRules, type Ignore } from '../util/ignore-rules.js'
import type { Dirent } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'

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
/** Subdirectories of a directory whose listings are read ahead of the walk. */
const READ_AHEAD = 8

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

/** A directory's entries sorted by name, and the rules that apply inside it. */
interface Listing {
  entries: Dirent[]
  rules: Rules[]
}

/** A subdirectory the walk will enter; its listing is read ahead once it is near. */
interface SubDir {
  dir: string
  rel: string
  /** Its place among the frame's subdirectories. */
  order: number
  listing: Promise<Listing> | undefined
}

/** A directory being walked: its files and subdirectories in name order, and where the walk is. */
interface Frame {
  items: Array<WalkedFile | SubDir>
  dirs: SubDir[]
  rules: Rules[]
  at: number
  /** Subdirectories whose listing has been started. */
  started: number
}

/**
 * Every regular file under `root` the search should read, in ripgrep's `--sort path` order, a
 * batch at a time as the walk finds them: a search can start on the first files while the walk
 * goes on, and stop it when it has enough. Directories are walked depth first with their entries
 * sorted by name, which is exactly that order (a directory's contents sort where its name sorts);
 * the listings of the next few subdirectories are read ahead, so the walk rarely waits for one.
 */
export async function* walkFiles(
  root: string,
  glob: string | undefined,
  signal?: AbortSignal,
): AsyncGenerator<WalkedFile[], void, undefined> {
  const matcher = glob === undefined ? undefined : globMatcher(glob)
  const top = resolve(root)
  const stack = [frameOf(top, '', await listDir(top, await parentRules(top)), matcher)]
  let batch: WalkedFile[] = []
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame
    const item = frame.items[frame.at++]
    if (item === undefined) {
      stack.pop()
      continue
    }
    if ('full' in item) {
      batch.push(item)
      continue
    }
    // Files found so far go out before the walk waits for a listing.
    if (batch.length > 0) yield batch
    batch = []
    signal?.throwIfAborted()
    readAhead(frame, item.order + 1 + READ_AHEAD)
    const listing = await (item.listing ?? listDir(item.dir, frame.rules))
    item.listing = undefined
    stack.push(frameOf(item.dir, item.rel, listing, matcher))
  }
  if (batch.length > 0) yield batch
}

/** Every regular file under `root` the search should read, sorted by path (ripgrep's order). */
export async function walkTree(root: string, glob: string | undefined, signal?: AbortSignal): Promise<WalkedFile[]> {
  const files: WalkedFile[] = []
  for await (const batch of walkFiles(root, glob, signal)) for (const file of batch) files.push(file)
  return files
}

function byName(a: Dirent, b: Dirent): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0
}

async function listDir(dir: string, inherited: Rules[]): Promise<Listing> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[])
  entries.sort(byName)
  const own = await ownRules(dir, entries)
  return { entries, rules: own.length === 0 ? inherited : [...inherited, ...own] }
}

/** Sorts a directory's entries into the files to search and the subdirectories to enter. */
function frameOf(dir: string, rel: string, listing: Listing, matcher: GlobMatcher | undefined): Frame {
  const { entries, rules } = listing
  const frame: Frame = { items: [], dirs: [], rules, at: 0, started: 0 }
  const prefix = dir.endsWith('/') ? dir : `${dir}/`
  for (const entry of entries) {
    if (SKIPPED.has(entry.name)) continue
    const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`
    const full = prefix + entry.name
    if (entry.isDirectory()) {
      if (matcher?.prunes(childRel) === true || ignored(full, true, rules)) continue
      const sub: SubDir = { dir: full, rel: childRel, order: frame.dirs.length, listing: undefined }
      frame.items.push(sub)
      frame.dirs.push(sub)
    } else if (entry.isFile() && wanted(full, childRel, rules, matcher)) frame.items.push({ path: childRel, full })
    // Anything else is a symlink (not followed, as ripgrep does not) or a special file.
  }
  readAhead(frame, READ_AHEAD)
  return frame
}

/** Starts reading the listings of the frame's subdirectories up to `upTo` (exclusive). */
function readAhead(frame: Frame, upTo: number): void {
  const end = Math.min(upTo, frame.dirs.length)
  for (; frame.started < end; frame.started++) {
    const sub = frame.dirs[frame.started] as SubDir
    sub.listing = listDir(sub.dir, frame.rules)
  }
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
  return [{ base: dir === '/' ? '' : dir, rules: texts.reduce((rules, text) => rules.add(text), ignoreRules()) }]
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
  const rules = (await Promise.all(dirs.map((dir) => rulesFrom(dir, IGNORE_FILES)))).flat()
  for (const r of rules) keepSearched(r, root)
  return rules
}

/**
 * The root is searched because it was asked for, even where a parent's rules ignore it (Grep in
 * `node_modules/x`, in an ignored build directory), as ripgrep does; the parent's other rules
 * still apply to what is inside. `ignore` tests a path's parent directories first, so the root
 * and the directories between it and the rules' base are re-included by anchored negations,
 * added last. A name that a pattern cannot hold literally keeps the old verdict (not searched).
 */
function keepSearched(r: Rules, root: string): void {
  const names = root.slice(r.base.length + 1).split('/')
  if (names.some((name) => name === '' || /[\\*?[\]!#\s]/.test(name))) return
  r.rules.add(names.map((_, i) => `!/${names.slice(0, i + 1).join('/')}/`))
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
