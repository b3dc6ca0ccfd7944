import { execFileSync } from 'node:child_process'
import {
  closeSync,
  openSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { createServer } from 'node:net'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { FileSystem } from '../../../src/index.js'
import { project, text } from './setup.js'

describe('Read', () => {
  it('returns numbered lines, cat -n style, and notes what is left', async () => {
    const { call, path } = project({ 'a.txt': 'one\ntwo\nthree\n' })
    expect(text(await call('Read', { file_path: path('a.txt') }))).toBe('     1\tone\n     2\ttwo\n     3\tthree')
    expect(text(await call('ReadFile', { file_path: path('a.txt'), offset: 2, limit: 1 }))).toBe(
      `     2\ttwo\n… 1 more lines (3 in all); continue with offset 3`,
    )
  })

  it('requires an absolute path and shows the one it would have meant', async () => {
    const { call, path } = project()
    expect(text(await call('Read', { file_path: 'src/x.ts' }))).toBe(
      `<tool_use_error>Read rejected its input: file_path must be an absolute path; "src/x.ts" is relative. Did you mean ${path('src/x.ts')}?</tool_use_error>`,
    )
  })

  it('suggests a similar name for a missing file, and refuses directories and binaries with advice', async () => {
    const { call, path } = project({ 'src/Foo.ts': 'x', 'bin.dat': new Uint8Array([1, 0, 2]) })
    expect(text(await call('Read', { file_path: path('src/foo.ts') }))).toBe(
      `Read failed: no such file ${path('src/foo.ts')} — did you mean ${path('src/Foo.ts')}?`,
    )
    expect(text(await call('Read', { file_path: path('src') }))).toMatch(
      /is a directory, not a file; list it with Glob or Bash/,
    )
    expect(text(await call('Read', { file_path: path('bin.dat') }))).toMatch(
      /is a binary file .* use Bash with a suitable command/,
    )
    expect(text(await call('Read', { file_path: path('nope/x.ts') }))).toMatch(
      /the directory .*nope does not exist either/,
    )
  })

  it('cuts very long lines with a marker, and asks for a range when the read is too large', async () => {
    const long = 'x'.repeat(2500)
    const { call, path } = project({ 'long.txt': `${long}\n`, 'huge.txt': `${'y'.repeat(1500)}\n`.repeat(400) })
    expect(text(await call('Read', { file_path: path('long.txt') }))).toBe(
      `     1\t${'x'.repeat(2000)}… [line cut: 2500 characters]`,
    )
    expect(text(await call('Read', { file_path: path('huge.txt') }))).toMatch(
      /more than Read returns at once .* read a smaller range with offset and limit/,
    )
  })

  it('returns images as image blocks, and is never persisted however large', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3])
    const { call, path } = project({ 'p.png': png, 'big.txt': 'z\n'.repeat(1999) })
    const block = await call('Read', { file_path: path('p.png') })
    expect(block.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: Buffer.from(png).toString('base64') } },
    ])
    const big = await call('Read', { file_path: path('big.txt') })
    expect(text(big)).not.toMatch(/Output too large/)
  })
})

describe('Write', () => {
  it('creates files (0644) and parent directories (0755), and reports the bytes', async () => {
    const { call, path } = project()
    expect(text(await call('Write', { file_path: path('deep/er/new.txt'), content: 'héllo' }))).toBe(
      `Created ${path('deep/er/new.txt')} (6 bytes written)`,
    )
    expect(readFileSync(path('deep/er/new.txt'), 'utf8')).toBe('héllo')
    expect(statSync(path('deep/er/new.txt')).mode & 0o777).toBe(0o644)
    expect(statSync(path('deep/er')).mode & 0o777).toBe(0o755)
  })

  it('overwrites only a file read in this session and unchanged since', async () => {
    const { call, path } = project({ 'a.txt': 'old' })
    expect(text(await call('Write', { file_path: path('a.txt'), content: 'new' }))).toBe(
      `Write failed: ${path('a.txt')} has not been read in this session; Read it before you overwrite it, so you know what you are replacing`,
    )
    await call('Read', { file_path: path('a.txt') })
    const future = new Date(Date.now() + 5000)
    utimesSync(path('a.txt'), future, future)
    expect(text(await call('Write', { file_path: path('a.txt'), content: 'new' }))).toMatch(
      /changed on disk since you read it .* Read it again before you overwrite it/,
    )
    await call('Read', { file_path: path('a.txt') })
    expect(text(await call('Write', { file_path: path('a.txt'), content: 'new' }))).toBe(
      `Overwrote ${path('a.txt')} (3 bytes written)`,
    )
    expect(readFileSync(path('a.txt'), 'utf8')).toBe('new')
  })
})

describe('Edit', () => {
  const source = 'const a = 1\nconst b = 2\nconst c = 3\nconst b2 = 2\n'

  it('replaces a unique string and shows the numbered lines around it', async () => {
    const { call, path } = project({ 'x.ts': source })
    await call('Read', { file_path: path('x.ts') })
    expect(
      text(await call('Edit', { file_path: path('x.ts'), old_string: 'const c = 3', new_string: 'const c = 4' })),
    ).toBe(
      `Edited ${path('x.ts')} (1 replacement):\n     1\tconst a = 1\n     2\tconst b = 2\n     3\tconst c = 4\n     4\tconst b2 = 2`,
    )
    expect(readFileSync(path('x.ts'), 'utf8')).toBe(source.replace('const c = 3', 'const c = 4'))
  })

  it('tells zero matches from several, and replaces all when asked; empty new_string deletes', async () => {
    const { call, path } = project({ 'x.ts': source })
    await call('Read', { file_path: path('x.ts') })
    expect(text(await call('Edit', { file_path: path('x.ts'), old_string: 'const d', new_string: 'x' }))).toMatch(
      /old_string was not found in .*x\.ts; check whitespace and indentation/,
    )
    expect(text(await call('Edit', { file_path: path('x.ts'), old_string: '= 2', new_string: '= 5' }))).toMatch(
      /old_string occurs 2 times in .*x\.ts; include more surrounding lines to make it unique, or set replace_all to change all 2/,
    )
    expect(
      text(await call('Edit', { file_path: path('x.ts'), old_string: '= 2', new_string: '= 5', replace_all: true })),
    ).toMatch(/\(2 replacements\)/)
    expect(text(await call('Edit', { file_path: path('x.ts'), old_string: 'const a = 1\n', new_string: '' }))).toMatch(
      /^Edited/,
    )
    expect(readFileSync(path('x.ts'), 'utf8')).toBe('const b = 5\nconst c = 3\nconst b2 = 5\n')
  })

  it('rejects no-op and empty edits before running, and edits of unread or changed files', async () => {
    const { call, path } = project({ 'x.ts': source })
    expect(text(await call('Edit', { file_path: path('x.ts'), old_string: 'a', new_string: 'a' }))).toMatch(
      /old_string and new_string are the same/,
    )
    expect(text(await call('Edit', { file_path: path('x.ts'), old_string: '', new_string: 'a' }))).toMatch(
      /old_string is empty; .*use Write/,
    )
    expect(text(await call('Edit', { file_path: path('x.ts'), old_string: 'const a', new_string: 'let a' }))).toMatch(
      /has not been read in this session; Read it before you edit it/,
    )
    await call('Read', { file_path: path('x.ts') })
    writeFileSync(path('x.ts'), `${source}// more\n`)
    const future = new Date(Date.now() + 5000)
    utimesSync(path('x.ts'), future, future)
    expect(text(await call('Edit', { file_path: path('x.ts'), old_string: 'const a', new_string: 'let a' }))).toMatch(
      /changed on disk since you read it/,
    )
    expect(text(await call('Edit', { file_path: path('missing.ts'), old_string: 'a', new_string: 'b' }))).toMatch(
      /no such file/,
    )
  })
})

/** Read as it was before streaming: the whole file in memory, split once. The oracle for the streaming Read. */
function wholeFileRead(bytes: Uint8Array, path: string, offset?: number, limit?: number): string {
  if (bytes.subarray(0, 8192).includes(0))
    return `Read failed: ${path} is a binary file (it contains NUL bytes), so it cannot be read as text; use Bash with a suitable command (file, xxd, strings, unzip -l) instead`
  const lines = Buffer.from(bytes).toString('utf8').split(/\r?\n/)
  if (lines.at(-1) === '') lines.pop()
  const first = offset ?? 1
  const count = limit ?? 2000
  if (lines.length === 0) return `(${path} is empty)`
  if (first > lines.length) return `Read failed: ${path} has ${lines.length} lines, so offset ${first} is past its end`
  const cut = (l: string) => (l.length > 2000 ? `${l.slice(0, 2000)}… [line cut: ${l.length} characters]` : l)
  const slice = lines.slice(first - 1, first - 1 + count).map(cut)
  const body = slice.map((l, i) => `${String(first + i).padStart(6)}\t${l}`).join('\n')
  if (body.length > 256_000)
    return `Read failed: lines ${first}-${first + slice.length - 1} of ${path} are ${body.length} characters, more than Read returns at once (256000); read a smaller range with offset and limit, or find the lines you need with Grep first`
  const rest = lines.length - (first - 1 + slice.length)
  return rest > 0
    ? `${body}\n… ${rest} more lines (${lines.length} in all); continue with offset ${first + slice.length}`
    : body
}

/** A file system holding one file, handed out in chunks of the given sizes (cycled). */
function chunkedFileSystem(path: string, bytes: Uint8Array, sizes: number[]): FileSystem {
  return {
    stat: async (p) => (p === path ? { kind: 'file', size: bytes.length, mtimeMs: 1 } : undefined),
    readFile: async () => bytes,
    writeFile: async () => {},
    readdir: async () => [],
    async *openRead() {
      for (let at = 0, i = 0; at < bytes.length; i++) {
        const size = sizes[i % sizes.length] ?? 1
        yield bytes.slice(at, at + size)
        at += size
      }
    },
  }
}

const piece = fc.oneof(
  fc.constantFrom('a', 'bc', ' x ', '\n', '\n', '\r\n', '\r', 'é', '😀', '\uFEFF', 'y'.repeat(700), 'z'.repeat(3000)),
  fc.constantFrom([0xff], [0xe2, 0x82], [0xf0, 0x9f], [0x80], [0]).map((b) => new Uint8Array(b)),
)

describe('Read streams the file', () => {
  it('gives exactly what reading the whole file gave, however the bytes are chunked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 40 }),
        fc.array(fc.oneof(fc.integer({ min: 1, max: 70 }), fc.integer({ min: 1, max: 10_000 })), {
          minLength: 1,
          maxLength: 5,
        }),
        fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
        async (pieces, sizes, offset, limit) => {
          const bytes = Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)))
          const file = '/virtual/f.txt'
          const { call } = project({}, { ports: { fs: chunkedFileSystem(file, bytes, sizes) } })
          const input = { file_path: file, ...(offset !== undefined ? { offset } : {}), ...(limit ? { limit } : {}) }
          expect(text(await call('Read', input))).toBe(wholeFileRead(bytes, file, offset, limit))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('refuses FIFOs, devices and sockets at once, before opening them', async () => {
    const { call, path } = project({ 'a.txt': 'x\n' })
    execFileSync('mkfifo', [path('pipe')])
    symlinkSync(path('pipe'), path('link-to-pipe'))
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(path('sock'), resolve))
    try {
      expect(text(await call('Read', { file_path: path('pipe') }))).toBe(
        `Read failed: ${path('pipe')} is a FIFO (named pipe), not a regular file; Read only reads regular files`,
      )
      expect(text(await call('Read', { file_path: path('link-to-pipe') }))).toMatch(/is a FIFO \(named pipe\)/)
      expect(text(await call('Read', { file_path: '/dev/null' }))).toBe(
        'Read failed: /dev/null is a character device, not a regular file; Read only reads regular files',
      )
      expect(text(await call('Read', { file_path: path('sock') }))).toMatch(/is a socket, not a regular file/)
    } finally {
      server.close()
    }
  }, 60_000)

  it('refuses an image larger than the cap instead of loading it', async () => {
    const { call, path } = project()
    writeFileSync(path('huge.png'), '')
    truncateSync(path('huge.png'), 21 * 1024 * 1024)
    expect(text(await call('Read', { file_path: path('huge.png') })).slice(0, 300)).toMatch(
      /huge\.png is a 21\.0 MB image, larger than the 20 MB Read returns/,
    )
  })

  it('reads one line of a 200 MB file without loading it, and counts lines past the end without keeping them', async () => {
    const { call, path } = project()
    const line = `${'log line with some text '.repeat(3)}\n`
    const block = Buffer.from(line.repeat(Math.ceil((1024 * 1024) / line.length)))
    const fd = openSync(path('big.log'), 'w')
    for (let i = 0; i < 200; i++) writeSync(fd, block)
    closeSync(fd)
    const lines = (block.length / line.length) * 200
    const out: string[] = []
    const growth = await peakRssGrowth(async () => {
      out.push(text(await call('Read', { file_path: path('big.log'), offset: 3, limit: 1 })))
      out.push(text(await call('Read', { file_path: path('big.log'), offset: lines + 1 })))
    })
    expect(growth).toBeLessThan(100 * 1024 * 1024)
    expect(out[0]).toMatch(/^ {5}3\tlog line with some text .*\n… more lines follow \(the file is 20\d\.\d MB/)
    expect(out[1]).toBe(`Read failed: ${path('big.log')} has ${lines} lines, so offset ${lines + 1} is past its end`)
  })
})

/** The largest RSS growth seen while `run` runs, sampled on every turn of the event loop. */
async function peakRssGrowth(run: () => Promise<void>): Promise<number> {
  const before = process.memoryUsage.rss()
  let peak = before
  let sampling = true
  const sample = (): void => {
    peak = Math.max(peak, process.memoryUsage.rss())
    if (sampling) setImmediate(sample)
  }
  sample()
  try {
    await run()
  } finally {
    sampling = false
  }
  return peak - before
}
