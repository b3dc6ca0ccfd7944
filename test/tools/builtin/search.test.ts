import { utimesSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createFileSearch } from '../../../src/adapters/file-search.js'
import { project, text } from './setup.js'
import { ripgrepInstalled } from '../../programs.js'

const files = {
  'src/a.ts': 'export const a = 1 // TODO one\nconst x = 2\nconst y = 3\n',
  'src/b.ts': 'import { a } from "./a"\n// todo two\n',
  'src/deep/c.ts': 'nothing here\n',
  'README.md': 'TODO: write docs\n',
  'node_modules/dep/index.js': 'TODO hidden in deps\n',
  '.gitignore': 'generated/\n*.log\n',
  'generated/out.ts': 'TODO generated\n',
  'debug.log': 'TODO in a log\n',
  'bin.dat': new Uint8Array([84, 79, 68, 79, 0, 1]),
}

function touch(path: string, secondsAgo: number): void {
  const t = new Date(Date.now() - secondsAgo * 1000)
  utimesSync(path, t, t)
}

describe('Glob', () => {
  it('matches ** patterns newest first, relative to the root, skipping ignored files', async () => {
    const { call, path } = project(files)
    touch(path('src/a.ts'), 30)
    touch(path('src/b.ts'), 10)
    touch(path('src/deep/c.ts'), 20)
    expect(text(await call('Glob', { pattern: '**/*.ts' }))).toBe('src/b.ts\nsrc/deep/c.ts\nsrc/a.ts')
    expect(text(await call('Glob', { pattern: '*.ts', path: path('src') }))).toBe('b.ts\na.ts')
    expect(text(await call('Glob', { pattern: '**/*.py' }))).toMatch(/^No files match \*\*\/\*\.py under /)
  })

  it('returns at most 200 paths and says how many more matched', async () => {
    const many = Object.fromEntries(Array.from({ length: 230 }, (_, i) => [`f/${String(i).padStart(3, '0')}.txt`, '']))
    const { call } = project(many)
    const out = text(await call('Glob', { pattern: 'f/*.txt' })).split('\n')
    expect(out).toHaveLength(201)
    expect(out.at(-1)).toBe('(30 more matched, 230 in all; narrow the pattern or the path)')
  })

  it('wants an absolute directory', async () => {
    const { call, path } = project(files)
    expect(text(await call('Glob', { pattern: '*', path: 'src' }))).toMatch(
      /path must be an absolute path; "src" is relative/,
    )
    expect(text(await call('Glob', { pattern: '*', path: path('README.md') }))).toMatch(/is not a directory/)
  })
})

describe('Grep', () => {
  it('lists matching files by default, skipping binaries, ignored and heavy directories', async () => {
    const { call } = project(files)
    expect(text(await call('Grep', { pattern: 'TODO' }))).toBe('README.md\nsrc/a.ts')
    expect(text(await call('Grep', { pattern: 'todo', '-i': true }))).toBe('README.md\nsrc/a.ts\nsrc/b.ts')
  })

  it('shows content as path:line: text, with context lines and counts', async () => {
    const { call, path } = project(files)
    expect(text(await call('Grep', { pattern: 'const', output_mode: 'content', glob: '**/*.ts' }))).toBe(
      'src/a.ts:1: export const a = 1 // TODO one\nsrc/a.ts:2: const x = 2\nsrc/a.ts:3: const y = 3',
    )
    expect(text(await call('Grep', { pattern: 'const x', output_mode: 'content', '-C': 1, path: path('src') }))).toBe(
      'a.ts-1- export const a = 1 // TODO one\na.ts:2: const x = 2\na.ts-3- const y = 3',
    )
    expect(text(await call('Grep', { pattern: 'const', output_mode: 'count' }))).toBe('src/a.ts:3')
    expect(text(await call('Grep', { pattern: 'y', output_mode: 'content', path: path('src/a.ts') }))).toBe(
      'a.ts:3: const y = 3',
    )
  })

  it('stops at 100 matches and says so; says when nothing matched; rejects a bad regex before running', async () => {
    const { call } = project({ 'many.txt': 'hit\n'.repeat(150) })
    const out = text(await call('Grep', { pattern: 'hit', output_mode: 'content' })).split('\n')
    expect(out).toHaveLength(101)
    expect(out.at(-1)).toBe('(more than 100 matches; narrow the pattern, path or glob)')
    expect(text(await call('Grep', { pattern: 'absent' }))).toMatch(/^No matches for \/absent\/ in /)
    expect(text(await call('Grep', { pattern: '(unclosed' }))).toMatch(
      /pattern is not a valid regular expression: .*Unterminated group/,
    )
  })

  it('says so when ripgrep cannot start, instead of answering "no matches"', async () => {
    const { root } = project(files)
    const missing = createFileSearch({ ripgrep: true, ripgrepCommand: '/nonexistent/rg' })
    const request = { pattern: 'TODO', root, ignoreCase: false, context: 0, mode: 'content' as const, limit: 100 }
    await expect(missing.grep(request)).rejects.toThrow(/ripgrep \(\/nonexistent\/rg\) could not start/)
    // Detected automatically: a missing rg means the built-in search, never an empty answer.
    const auto = createFileSearch({ ripgrepCommand: '/nonexistent/rg' })
    expect((await auto.grep(request)).engine).toBe('builtin')
    expect((await auto.grep(request)).lines.length).toBeGreaterThan(0)
  })

  it.skipIf(!ripgrepInstalled)(
    'gives identical lines from ripgrep and the built-in search (needs ripgrep on PATH)',
    async () => {
      const { root } = project(files)
      const rg = createFileSearch({ ripgrep: true })
      const builtin = createFileSearch({ ripgrep: false })
      for (const mode of ['content', 'files_with_matches', 'count'] as const) {
        for (const options of [
          { pattern: 'TODO', ignoreCase: false, context: 0 },
          { pattern: 'todo|const', ignoreCase: true, context: 1 },
        ]) {
          const request = { ...options, root, mode, limit: 100 }
          const [a, b] = await Promise.all([rg.grep(request), builtin.grep(request)])
          expect({ lines: a.lines, truncated: a.truncated, engine: a.engine }).toEqual({
            lines: b.lines,
            truncated: b.truncated,
            engine: 'ripgrep',
          })
        }
      }
    },
  )
})
