import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
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
