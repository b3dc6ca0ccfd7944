/** The Bash process runner on real processes: bounded memory, the full output in a file, the cap, progress. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { HEAD_BYTES, TAIL_BYTES } from '../../src/adapters/output-capture.js'
import { PROGRESS_MAX_REPORTS } from '../../src/adapters/output-progress.js'
import { createProcessRunner } from '../../src/adapters/process-runner.js'
import { createDirectoryResultStore } from '../../src/adapters/result-store.js'
import type { ResultWriter } from '../../src/ports/index.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolkernel-runner-'))
  dirs.push(dir)
  return dir
}
const signal = new AbortController().signal
const key = { turnId: 't', toolUseId: 'call' }
/** A real directory store's writer for this run. */
const fileIn = (dir: string) => () =>
  createDirectoryResultStore(join(dir, 'results')).open!(key) as Promise<ResultWriter>

describe('createProcessRunner', () => {
  it('keeps small output whole and in order, with no file', async () => {
    const cwd = scratch()
    const result = await createProcessRunner().run('echo a; echo b >&2; echo c', {
      cwd,
      timeoutMs: 5000,
      signal,
      openOutputFile: fileIn(cwd),
    })
    expect(result).toEqual({
      output: 'a\nb\nc\n',
      tail: '',
      totalBytes: 6,
      omittedBytes: 0,
      exitCode: 0,
      timedOut: false,
      aborted: false,
    })
  })

  it('keeps the head and tail of large output, counts it all and streams all of it to the file', async () => {
    const cwd = scratch()
    const result = await createProcessRunner().run('seq 1 100000', {
      cwd,
      timeoutMs: 5000,
      signal,
      openOutputFile: fileIn(cwd),
    })
    const full = readFileSync(result.savedPath as string, 'utf8')
    expect(full).toBe(`${Array.from({ length: 100000 }, (_, i) => i + 1).join('\n')}\n`)
    expect(result.totalBytes).toBe(full.length)
    expect(result.output).toBe(full.slice(0, HEAD_BYTES))
    expect(result.tail).toBe(full.slice(-TAIL_BYTES))
    expect(result.omittedBytes).toBe(full.length - HEAD_BYTES - TAIL_BYTES)
  })

  it('without a file, drops the middle and says nothing was saved', async () => {
    const result = await createProcessRunner().run('seq 1 100000', { cwd: scratch(), timeoutMs: 5000, signal })
    expect(result.savedPath).toBeUndefined()
    expect(result.omittedBytes).toBeGreaterThan(0)
    expect(result.tail.endsWith('99999\n100000\n')).toBe(true)
  })

  it('when the file cannot be opened, keeps the head and tail and says why', async () => {
    const result = await createProcessRunner().run('seq 1 100000', {
      cwd: scratch(),
      timeoutMs: 5000,
      signal,
      openOutputFile: () => Promise.reject(new Error('disk full')),
    })
    expect(result).toMatchObject({ saveError: 'disk full', exitCode: 0 })
    expect(result.output.startsWith('1\n2\n')).toBe(true)
  })

  it('waits for a writer that asks to wait, and loses nothing', async () => {
    const written: string[] = []
    let waits = 0
    // A writer that is always full: each write answers false and is drained on the next turn of the loop.
    const writer = {
      path: '/in-memory',
      write: (chunk: string) => (written.push(chunk), false),
      drained: () => (waits++, new Promise<void>((resolve) => setImmediate(resolve))),
      close: async () => {},
    }
    const result = await createProcessRunner().run('seq 1 100000', {
      cwd: scratch(),
      timeoutMs: 5000,
      signal,
      openOutputFile: async () => writer,
    })
    expect(written.join('')).toBe(`${Array.from({ length: 100000 }, (_, i) => i + 1).join('\n')}\n`)
    expect(waits).toBeGreaterThan(0)
    expect(result.savedPath).toBe('/in-memory')
  })

  it('stops a command past its cap, and the file holds exactly the first cap bytes', async () => {
    const cwd = scratch()
    const result = await createProcessRunner({ maxOutputBytes: 300_000 }).run('yes', {
      cwd,
      timeoutMs: 5000,
      signal,
      openOutputFile: fileIn(cwd),
    })
    expect(result).toMatchObject({ outputLimitBytes: 300_000, totalBytes: 300_000, timedOut: false })
    expect(result.cleanup).toBe('its process group was killed')
    expect(readFileSync(result.savedPath as string, 'utf8')).toBe('y\n'.repeat(150_000))
  })

  it('cuts head and tail on character boundaries', async () => {
    const result = await createProcessRunner().run("yes é | head -n 100000 | tr -d '\\n'", {
      cwd: scratch(),
      timeoutMs: 5000,
      signal,
    })
    expect(result.totalBytes).toBe(200_000)
    expect(result.output).toMatch(/^é+$/)
    expect(result.tail).toMatch(/^é+$/)
    expect(Buffer.byteLength(result.output) + Buffer.byteLength(result.tail) + result.omittedBytes).toBe(200_000)
  })

  it('coalesces progress: small output arrives whole, a flood in at most a bounded number of reports', async () => {
    const small: string[] = []
    await createProcessRunner().run('echo one; echo two', {
      cwd: scratch(),
      timeoutMs: 5000,
      signal,
      onOutput: (chunk) => small.push(chunk),
    })
    expect(small.join('')).toBe('one\ntwo\n')
    const flood: string[] = []
    await createProcessRunner().run('head -c 20000000 /dev/zero', {
      cwd: scratch(),
      timeoutMs: 5000,
      signal,
      onOutput: (chunk) => flood.push(chunk),
    })
    expect(flood.length).toBeLessThanOrEqual(PROGRESS_MAX_REPORTS)
    expect(flood.at(-1)).toMatch(/further output is not shown as progress/)
    expect(Math.max(...flood.map((chunk) => chunk.length))).toBeLessThan(9 * 1024)
  })

  it('gives commands the allowlisted environment plus what the app allows and sets', async () => {
    process.env.TK_SECRET_TEST = 'x'
    process.env.TK_ALLOWED_TEST = 'y'
    try {
      const runner = createProcessRunner({ env: { allow: ['TK_ALLOWED_TEST'], set: { TK_SET_TEST: 'z' } } })
      const result = await runner.run(
        'echo "[$TK_SECRET_TEST] [$TK_ALLOWED_TEST] [$TK_SET_TEST] $TERM ${PATH:+path}"',
        {
          cwd: scratch(),
          timeoutMs: 5000,
          signal,
        },
      )
      expect(result.output).toBe('[] [y] [z] dumb path\n')
    } finally {
      delete process.env.TK_SECRET_TEST
      delete process.env.TK_ALLOWED_TEST
    }
  })

  it('reports the signal that ended the shell, and a shell that cannot start', async () => {
    const killed = await createProcessRunner().run('kill -9 $$', { cwd: scratch(), timeoutMs: 5000, signal })
    expect(killed).toMatchObject({ exitCode: null, exitSignal: 'SIGKILL' })
    const missing = join(scratch(), 'missing')
    const result = await createProcessRunner().run('echo hi', { cwd: missing, timeoutMs: 5000, signal })
    expect(result.startError).toMatch(new RegExp(`^the working directory ${missing} does not exist \\(`))
  })
})
