import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readOnlyVerdict } from '../../../src/index.js'
import { assistant } from '../../helpers.js'
import { project, text } from './setup.js'

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Polls (no fixed sleeps) until the file holds a pid. */
async function pidFrom(file: string): Promise<number> {
  for (let i = 0; i < 500; i++) {
    if (existsSync(file)) {
      const pid = Number(readFileSync(file, 'utf8').trim())
      if (pid > 0) return pid
    }
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`no pid in ${file}`)
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 300 && alive(pid); i++) await new Promise((r) => setTimeout(r, 10))
  return !alive(pid)
}

describe('Bash', () => {
  it('runs in the working directory and merges stdout and stderr in the order written', async () => {
    const { call, root } = project()
    expect(text(await call('Bash', { command: 'pwd; echo out; echo err >&2; echo out2' }))).toBe(
      `${root}\nout\nerr\nout2`,
    )
  })

  it('treats a non-zero exit code as feedback, not an error', async () => {
    const { call } = project()
    const block = await call('Bash', { command: 'echo nothing found; exit 1' })
    expect(block.is_error).toBeUndefined()
    expect(text(block)).toBe('nothing found\n\nexit code 1')
    expect(text(await call('Bash', { command: 'true' }))).toBe('(Bash completed with no output)')
  })

  it('kills the whole process tree on timeout, and says so as an error', async () => {
    const { call, root } = project()
    const pidFile = join(root, 'child.pid')
    const block = await call('Bash', { command: `sleep 300 & echo $! > ${pidFile}; echo started; wait`, timeout: 300 })
    expect(block.is_error).toBe(true)
    expect(text(block)).toBe(
      'Bash failed: the command timed out after 0.3 s and was killed, with every process it started. Output before it stopped:\nstarted',
    )
    expect(await gone(await pidFrom(pidFile))).toBe(true)
  })

  it('on abort, stops the command and its children and keeps the partial output', async () => {
    const { kernel, root } = project()
    const pidFile = join(root, 'child.pid')
    const controller = new AbortController()
    const turn = kernel.runTurn(
      assistant(['b', 'Bash', { command: `echo first; sleep 300 & echo $! > ${pidFile}; wait` }]),
      { signal: controller.signal },
    )
    const pid = await pidFrom(pidFile)
    controller.abort()
    const { message } = await turn
    expect(text(message.content[0] as never)).toBe(
      'Bash was interrupted while running: the user interrupted the turn. It may have had partial effects; check before calling it again. Output before it stopped:\nfirst\n',
    )
    expect(await gone(pid)).toBe(true)
  })

  it('streams output as progress while it runs', async () => {
    const { kernel } = project()
    const { events } = await kernel.runTurn(assistant(['b', 'Bash', { command: 'echo one; sleep 0.05; echo two' }]))
    expect(
      events
        .filter((e) => e.type === 'tool.progress')
        .map((e) => (e as { data: string }).data)
        .join(''),
    ).toBe('one\ntwo\n')
  })

  it('reports a command that cannot start as an error', async () => {
    const { call } = project({}, { cwd: join(mkdtempSync(join(tmpdir(), 'tk-')), 'missing-dir') })
    const block = await call('Bash', { command: 'echo hi' })
    expect(block.is_error).toBe(true)
    expect(text(block)).toMatch(/^Bash failed: the command could not be started: /)
  })

  it('runs read-only commands in parallel and others alone', async () => {
    const { kernel } = project()
    const { events } = await kernel.runTurn(
      assistant(
        ['a', 'Bash', { command: 'ls' }],
        ['b', 'Bash', { command: 'git status' }],
        ['c', 'Bash', { command: 'touch x' }],
      ),
    )
    expect(events.filter((e) => e.type === 'tool.dispatched').map((e) => (e as { batch: number }).batch)).toEqual([
      0, 0, 1,
    ])
  })
})

describe('read-only classification of shell commands', () => {
  const readOnly = [
    'ls -la',
    'cat a.txt | grep foo | wc -l',
    'git status && git log --oneline -5',
    'find . -name "*.ts"',
    'grep -r TODO src 2>/dev/null',
    'head -n 5 a; tail b',
    'rg foo 2>&1',
    'sort a.txt',
    'echo "$"',
  ]
  const writes = [
    'rm -rf /',
    'echo hi > file.txt',
    'cat a >> b',
    'ls && rm x',
    'find . -delete',
    'find . -exec rm {} \\;',
    'git push',
    'git checkout main',
    'echo $(rm x)',
    'echo `rm x`',
    'ls $HOME',
    'cat <(rm x)',
    'sort -o out.txt in.txt',
    'FOO=1 ls',
    'npm test',
    'ls &',
    'uniq in out',
    '',
    'echo "unterminated',
  ]
  it.each(readOnly)('%s is read-only', (command) => expect(readOnlyVerdict(command)).toEqual({ readOnly: true }))
  it.each(writes)('%s is not', (command) => expect(readOnlyVerdict(command).readOnly).toBe(false))
})
