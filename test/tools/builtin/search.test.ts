import { execFileSync } from 'node:child_process'
import { chmodSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createFileSearch } from '../../../src/adapters/file-search.js'
import type { GrepOptions, ToolResultBlock } from '../../../src/index.js'
import { assistant } from '../../helpers.js'
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

const request = (root: string, more: Partial<GrepOptions> = {}): GrepOptions => ({
  pattern: 'hit',
  root,
  ignoreCase: false,
  context: 0,
  mode: 'content',
  limit: 100,
  ...more,
})

/** An executable stand-in for rg that runs `script` (sh) whatever it is asked. */
function fakeRipgrep(dir: string, script: string): string {
  const file = join(dir, 'fake-rg')
  writeFileSync(file, `#!/bin/sh\n${script}\n`)
  chmodSync(file, 0o755)
  return file
}

const edges = {
  'first-last.txt': 'hit first\nmiddle\nmore\nhit last\n',
  'crlf.txt': 'one\r\nhit two\r\nthree\r\n\r\nhit five\r\n',
  'no-newline.txt': 'alpha\nhit omega',
  'lone-cr.txt': 'a\rhit\rb\nc\n',
  'empty-lines.txt': '\n\nhit\n\n',
  'empty.txt': '',
  'Upper.txt': 'HIT upper\n',
  'dense.txt': Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? `hit ${i}` : `line ${i}`)).join('\n'),
  'a.c': 'hit\n',
  'a/b.txt': 'hit\n',
  'a-b/c.txt': 'x\nhit\n',
  'utf8.txt': 'héllo hit 😀\nnaïve\n',
  'late-nul.txt': `${'x\n'.repeat(5000)}hit\n\0\n`,
}

describe.skipIf(!ripgrepInstalled)('ripgrep and the built-in search (needs ripgrep on PATH)', () => {
  it('give identical lines at file edges, for CRLF, without a final newline, and past the limit', async () => {
    const { root } = project(edges)
    const rg = createFileSearch({ ripgrep: true })
    const builtin = createFileSearch({ ripgrep: false })
    const patterns = [
      { pattern: 'hit', ignoreCase: false },
      { pattern: 'hit', ignoreCase: true },
      { pattern: '^hit', ignoreCase: false },
      { pattern: 'o$|a$', ignoreCase: false },
      { pattern: '^$', ignoreCase: false },
      { pattern: '\\d', ignoreCase: false },
      // These match across a newline in the whole text; lines are matched one by one.
      { pattern: 'alpha\\s+hit', ignoreCase: false },
      { pattern: 'first[^z]*last', ignoreCase: false },
    ]
    type Case = Omit<GrepOptions, 'root' | 'pattern' | 'ignoreCase'>
    const cases: Case[] = [
      ...(['content', 'files_with_matches', 'count'] as const).map((mode) => ({ mode, context: 1, limit: 100 })),
      { mode: 'content', context: 0, limit: 100 },
      { mode: 'content', context: 2, limit: 100 },
    ]
    const requests = patterns.flatMap((p) => cases.map((c) => ({ ...p, ...c })))
    // Past the limit: the first matches in path order, and only their own context.
    for (const [context, limit] of [
      [0, 1],
      [1, 3],
      [2, 7],
      [1, 12],
    ] as const)
      requests.push({ pattern: 'hit', ignoreCase: true, mode: 'content', context, limit })
    for (const mode of ['files_with_matches', 'count'] as const)
      requests.push({ pattern: 'hit', ignoreCase: false, mode, context: 0, limit: 2 })
    for (const glob of ['*.txt', '!a*', 'a/**', '*.{c,txt}'])
      requests.push({ pattern: 'hit', ignoreCase: false, mode: 'content', context: 0, limit: 100, glob })
    for (const r of requests) {
      const request = { ...r, root }
      const [a, b] = await Promise.all([rg.grep(request), builtin.grep(request)])
      expect({ request, lines: b.lines, truncated: b.truncated }).toEqual({
        request,
        lines: a.lines,
        truncated: a.truncated,
      })
    }
  })
})

describe('the built-in search', () => {
  it('matches lookarounds line by line: they never see past the end of a line', async () => {
    const { root } = project({ 'f.txt': 'hit\nx hit\n' })
    const builtin = createFileSearch({ ripgrep: false })
    const lines = async (pattern: string) => (await builtin.grep(request(root, { pattern }))).lines
    expect(await lines('hit(?![\\s\\S])')).toEqual(['f.txt:1: hit', 'f.txt:2: x hit'])
    expect(await lines('(?<![\\s\\S])x')).toEqual(['f.txt:2: x hit'])
    expect(await lines('(?<=x )hit')).toEqual(['f.txt:2: x hit'])
  })

  it('skips a file with a NUL in its first 64 KiB, and stops at a NUL further on', async () => {
    const { root } = project({
      'early.txt': `hit\n${'x\n'.repeat(30_000)}\0\n`,
      'late.txt': `hit\n${'x\n'.repeat(40_000)}\0hit\nhit\n`,
    })
    const builtin = createFileSearch({ ripgrep: false })
    expect((await builtin.grep(request(root))).lines).toEqual(['late.txt:1: hit'])
  })
})

describe('Grep never hangs on special files', () => {
  it('refuses a FIFO, a device or a socket as the root at once, with either engine', async () => {
    const { call, path, root } = project({ 'a.txt': 'hit\n' })
    execFileSync('mkfifo', [path('pipe')])
    for (const ripgrep of [...(ripgrepInstalled ? [true] : []), false]) {
      const search = createFileSearch({ ripgrep })
      await expect(search.grep(request(path('pipe')))).rejects.toThrow(
        `${path('pipe')} is a FIFO (named pipe), not a regular file or a directory; Grep searches only those`,
      )
      await expect(search.grep(request('/dev/null'))).rejects.toThrow(/\/dev\/null is a character device/)
      expect((await search.grep(request(root))).lines).toEqual(['a.txt:1: hit'])
    }
    expect(text(await call('Grep', { pattern: 'hit', path: path('pipe') }))).toBe(
      `Grep failed: ${path('pipe')} is a FIFO (named pipe), not a regular file or a directory; Grep searches only those`,
    )
  }, 60_000)

  it('skips FIFOs, sockets and links to them inside a tree', async () => {
    const { path, root } = project({ 'a.txt': 'hit\n', 'sub/b.txt': 'hit\n' })
    execFileSync('mkfifo', [path('sub/pipe')])
    symlinkSync(path('sub/pipe'), path('link'))
    symlinkSync('/dev/zero', path('zero'))
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(path('sock'), resolve))
    try {
      const search = createFileSearch({ ripgrep: false })
      const found = await search.grep(request(root, { pattern: '.', mode: 'files_with_matches' }))
      expect(found.lines).toEqual(['a.txt', 'sub/b.txt'])
    } finally {
      server.close()
    }
  }, 60_000)
})

describe('the built-in search runs off the main thread', () => {
  const catastrophic = { 'a.txt': `${'a'.repeat(40)}b\n` }

  it('keeps the process responsive on a catastrophic pattern, and stops on abort', async () => {
    const { root } = project(catastrophic)
    const search = createFileSearch({ ripgrep: false })
    const controller = new AbortController()
    let ticks = 0
    const timer = setInterval(() => {
      if (++ticks === 5) controller.abort(new Error('user pressed Esc'))
    }, 10)
    try {
      await expect(search.grep(request(root, { pattern: '(a+)+$', signal: controller.signal }))).rejects.toThrow(
        /the search was aborted: user pressed Esc/,
      )
    } finally {
      clearInterval(timer)
    }
    expect(ticks).toBeGreaterThanOrEqual(5)
  })

  it('is interrupted with the turn: a running Grep stops when the user aborts', async () => {
    const { kernel } = project(catastrophic, { ports: { search: createFileSearch({ ripgrep: false }) } })
    const controller = new AbortController()
    const turn = kernel.runTurn(assistant(['call_1', 'Grep', { pattern: '(a+)+$' }]), { signal: controller.signal })
    let ticks = 0
    const timer = setInterval(() => {
      if (++ticks === 5) controller.abort('user pressed Esc')
    }, 10)
    try {
      const { message } = await turn
      expect(text(message.content[0] as ToolResultBlock)).toMatch(/interrupted/i)
    } finally {
      clearInterval(timer)
    }
    expect(ticks).toBeGreaterThanOrEqual(5)
  })

  it('gives up after the time limit and says which file and why', async () => {
    // The limit covers the worker's start and the walk too: 0.8 s was spent before the file was
    // reached on a loaded machine (the walk was blamed). The pattern never ends on this file, so a
    // larger limit only makes the test take it.
    const { call, root } = project(catastrophic, {
      ports: { search: createFileSearch({ ripgrep: false, timeoutMs: 5_000 }) },
    })
    expect(text(await call('Grep', { pattern: '(a+)+$' }))).toBe(
      `Grep failed: the pattern took longer than 5 s on ${join(root, 'a.txt')}; it may backtrack catastrophically — simplify it`,
    )
    // The limit is per search, and the next search gets a fresh worker.
    expect(text(await call('Grep', { pattern: 'b$' }))).toBe('a.txt')
  })
})

describe('Grep with ripgrep', () => {
  it('stops ripgrep on abort and after the time limit', async () => {
    const { root } = project({ 'a.txt': 'hit\n' })
    const slow = createFileSearch({ ripgrep: true, ripgrepCommand: fakeRipgrep(root, 'exec sleep 30') })
    const controller = new AbortController()
    const pending = slow.grep(request(root, { signal: controller.signal }))
    controller.abort(new Error('user pressed Esc'))
    await expect(pending).rejects.toThrow(/the search was aborted: user pressed Esc/)
    await expect(slow.grep(request(root, { timeoutMs: 200 }))).rejects.toThrow(
      `ripgrep took longer than 0.2 s searching ${root}; narrow the path or the glob`,
    )
  }, 60_000)

  it('stops reading ripgrep once the limit is reached, instead of holding all its output', async () => {
    const { root } = project({ 'a.txt': 'hit\n' })
    const match = JSON.stringify({
      type: 'match',
      data: { path: { text: join(root, 'a.txt') }, lines: { text: 'hit\n' }, line_number: 1 },
    })
    const endless = createFileSearch({ ripgrep: true, ripgrepCommand: fakeRipgrep(root, `exec yes '${match}'`) })
    const result = await endless.grep(request(root, { limit: 3 }))
    expect(result).toEqual({
      lines: ['a.txt:1: hit', 'a.txt:1: hit', 'a.txt:1: hit'],
      truncated: true,
      engine: 'ripgrep',
    })
  }, 60_000)
})

describe('past the limit', () => {
  it('shows only the context that belongs to the matches shown, with either engine', async () => {
    const { root } = project({ 'f.txt': 'hit\nx\ny\nz\nhit\n' })
    for (const ripgrep of [...(ripgrepInstalled ? [true] : []), false]) {
      const search = createFileSearch({ ripgrep })
      expect(await search.grep(request(root, { limit: 1, context: 1 }))).toMatchObject({
        lines: ['f.txt:1: hit', 'f.txt-2- x'],
        truncated: true,
      })
    }
  })
})
