/**
 * The docs hold together: every relative link in docs/ and README.md reaches a file, a link to a
 * heading reaches that heading, the decisions index lists every decision record once, and no file
 * cites a document the repository does not have (DESIGN.md and CONVENTIONS.md live outside it;
 * docs/design.md and docs/conventions.md are the repository's own).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

function walk(dir: string, keep: (path: string) => boolean): string[] {
  const found: string[] = []
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules' || name === 'dist' || name === '.git') continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) found.push(...walk(path, keep))
    else if (keep(path)) found.push(path)
  }
  return found
}

/** Markdown without fenced code blocks and inline code spans, whose text is not markup. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/(`+)[^`]*?\1/g, '')
}

/** GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors a markdown file's headings get, numbered as GitHub numbers repeats. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const result = new Set<string>()
  const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
  for (const match of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(match[1] ?? '')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    result.add(count === 0 ? base : `${base}-${count}`)
  }
  return result
}

function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? '')
}

const markdownFiles = [join(root, 'README.md'), ...walk(join(root, 'docs'), (path) => path.endsWith('.md'))]

describe('relative links in docs/ and README.md', () => {
  for (const file of markdownFiles) {
    it(`${relative(root, file)}: every relative link reaches a file, and a heading where it names one`, () => {
      const broken: string[] = []
      for (const link of links(readFileSync(file, 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue // http:, mailto: …
        const [path = '', anchor] = link.split('#')
        const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path))
        if (!existsSync(target)) {
          broken.push(`${link}: no such file`)
          continue
        }
        if (anchor === undefined || !target.endsWith('.md')) continue
        if (!anchors(readFileSync(target, 'utf8')).has(decodeURIComponent(anchor))) {
          broken.push(`${link}: no such heading in ${relative(root, target)}`)
        }
      }
      expect(broken).toEqual([])
    })
  }
})

describe('docs/decisions.md, the index', () => {
  const dir = join(root, 'docs/decisions')
  const records = existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.md')) : []
  const numbered = (markdown: string) => [...markdown.matchAll(/^## (\d+)\. /gm)].map((m) => Number(m[1]))

  it('has topic files under docs/decisions/, each decision in number order', () => {
    expect(records.length).toBeGreaterThan(0)
    for (const name of records) {
      const numbers = numbered(readFileSync(join(dir, name), 'utf8'))
      expect(numbers.length, name).toBeGreaterThan(0)
      expect(numbers, name).toEqual([...numbers].sort((a, b) => a - b))
    }
  })

  it('lists every decision once, linking to the file that holds it', () => {
    const held = new Map<number, string>()
    for (const name of records) {
      for (const n of numbered(readFileSync(join(dir, name), 'utf8'))) {
        expect(held.has(n), `decision ${n} is in ${held.get(n)} and ${name}`).toBe(false)
        held.set(n, name)
      }
    }
    const numbers = [...held.keys()].sort((a, b) => a - b)
    expect(numbers).toEqual(numbers.map((_, i) => i + 1))

    const index = readFileSync(join(root, 'docs/decisions.md'), 'utf8')
    const listed = [...index.matchAll(/^- \[(\d+)\. [^\]]*\]\(decisions\/([^)#]+)#[^)]+\)/gm)]
    expect(listed.map((m) => Number(m[1])).sort((a, b) => a - b)).toEqual(numbers)
    for (const m of listed) expect(`${m[1]} → ${m[2]}`).toBe(`${m[1]} → ${held.get(Number(m[1]))}`)
  })
})

describe('citations', () => {
  const cited = /\b(?:DESIGN|CONVENTIONS)\b/
  const checked = [
    ...['src', 'test', 'scripts', 'bench', 'docs', 'examples'].flatMap((dir) =>
      walk(join(root, dir), (path) => /\.(?:[cm]?[jt]s|md)$/.test(path)),
    ),
    ...['README.md', 'eslint.config.js', '.dependency-cruiser.cjs', 'stryker.config.mjs'].map((f) => join(root, f)),
  ].filter((path) => path !== fileURLToPath(import.meta.url))

  it('no file cites DESIGN.md or CONVENTIONS.md, which are not in the repository (docs/design.md, docs/conventions.md are)', () => {
    const citing = checked.flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((line, i) => (cited.test(line) ? [`${relative(root, path)}:${i + 1}: ${line.trim()}`] : [])),
    )
    expect(citing).toEqual([])
  })

  it('a citation of docs/design.md or docs/conventions.md §Section names a heading of that file', () => {
    const headings = (doc: string) =>
      new Set([...readFileSync(join(root, doc), 'utf8').matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map((m) => m[1]))
    const docs = { 'docs/design.md': headings('docs/design.md'), 'docs/conventions.md': headings('docs/conventions.md') }
    const unknown = checked.flatMap((path) =>
      [...readFileSync(path, 'utf8').matchAll(/(docs\/(?:design|conventions)\.md) §([^).,;:"`\n]+)/g)]
        .filter((m) => !docs[m[1] as keyof typeof docs].has((m[2] ?? '').trim()))
        .map((m) => `${relative(root, path)}: ${m[0]}`),
    )
    expect(unknown).toEqual([])
  })
})
