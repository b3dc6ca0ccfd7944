import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadBashGrammar } from '../../../src/adapters/bash-grammar.js'
import { filter, firstValueFrom } from 'rxjs'
import { Bash, createMemoryLog, readOnlyVerdict, type ShellAnalyzer, type ToolContext } from '../../../src/index.js'
import { assistant, fixedClock } from '../../helpers.js'
import { gone } from '../../processes.js'
import { project, text } from './setup.js'

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
      'Bash failed: the command timed out after 0.3 s; its process group was killed. Output before it stopped:\nstarted',
    )
    expect(await gone(await pidFrom(pidFile))).toBe(true)
  })

  it('on abort, stops the command and its children and keeps the partial output', async () => {
    const log = createMemoryLog(fixedClock())
    const { kernel, root } = project({}, { log })
    const pidFile = join(root, 'child.pid')
    const controller = new AbortController()
    // Aborted once its first output has been reported (progress is coalesced, so it may come a moment later).
    const reported = firstValueFrom(log.events$.pipe(filter((e) => e.type === 'tool.progress')))
    const turn = kernel.runTurn(
      assistant(['b', 'Bash', { command: `echo first; sleep 300 & echo $! > ${pidFile}; wait` }]),
      { signal: controller.signal },
    )
    const pid = await pidFrom(pidFile)
    await reported
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

  it('ends on time when a process that left the group (setsid) holds the output open, and kills it', async () => {
    const { call, root } = project()
    const pidFile = join(root, 'escaped.pid')
    const block = await call('Bash', {
      command: `setsid sleep 100 & echo $! > ${pidFile}; echo started; sleep 100`,
      timeout: 300,
    })
    expect(block.is_error).toBe(true)
    expect(text(block)).toBe(
      'Bash failed: the command timed out after 0.3 s; its process group was killed; 1 process that had left the group (setsid) was found and killed too. Output before it stopped:\nstarted',
    )
    expect(await gone(await pidFrom(pidFile))).toBe(true)
  }, 60_000)

  it('on timeout also kills a setsid process whose parent is gone, found by the output it holds open', async () => {
    const { call, root } = project()
    const pidFile = join(root, 'escaped.pid')
    const block = await call('Bash', {
      command: `(setsid bash -c 'sleep 100' & echo $! > ${pidFile}); sleep 100`,
      timeout: 300,
    })
    expect(text(block)).toMatch(
      /^Bash failed: the command timed out after 0.3 s; its process group was killed; 1 process that had left the group \(setsid\) was found and killed too\./,
    )
    expect(await gone(await pidFrom(pidFile))).toBe(true)
  }, 60_000)

  it('a command that ends leaving a setsid process on its output returns at once, and says that process was killed', async () => {
    const { call, root } = project()
    const pidFile = join(root, 'escaped.pid')
    // The command ends only once its child has left the group, so it is not simply killed with the group.
    const block = await call('Bash', {
      command: `setsid sleep 100 & p=$!; until [ "$(cut -d' ' -f5 /proc/$p/stat)" = "$p" ]; do :; done; echo $p > ${pidFile}; echo done`,
    })
    expect(block.is_error).toBeUndefined()
    expect(text(block)).toBe(
      'done\n\n(1 process that had left its process group (setsid) kept the output open after the command ended; it was found and killed)',
    )
    expect(await gone(await pidFrom(pidFile))).toBe(true)
  }, 60_000)

  it('kills what a finished command left running in its group, and says so', async () => {
    const { call, root } = project()
    const pidFile = join(root, 'bg.pid')
    const block = await call('Bash', { command: `sleep 100 > /dev/null 2>&1 & echo $! > ${pidFile}; echo done` })
    expect(text(block)).toBe('done\n\n(1 process it left running in the background was killed when it ended)')
    expect(await gone(await pidFrom(pidFile))).toBe(true)
  }, 60_000)

  it('hides the host environment: only allowlisted variables reach the command', async () => {
    process.env.TK_SECRET_TEST = 'x'
    try {
      const { call } = project()
      const block = await call('Bash', {
        command: 'echo "[$TK_SECRET_TEST]"; echo "$TERM $PAGER $GIT_PAGER"; test -n "$PATH" && echo path',
      })
      expect(text(block)).toBe('[]\ndumb cat cat\npath')
    } finally {
      delete process.env.TK_SECRET_TEST
    }
  })

  it('keeps only the head and tail of long output in memory and streams all of it to the result store', async () => {
    const { call } = project()
    // 200,000 numbered lines: about 1.3 MB, far past what is kept in memory.
    const block = await call('Bash', { command: 'seq 1 200000; echo last line >&2; exit 3' })
    const shown = text(block)
    expect(block.is_error).toBeUndefined()
    expect(shown.startsWith('1\n2\n3\n')).toBe(true)
    expect(shown.endsWith('199999\n200000\nlast line\n\nexit code 3')).toBe(true)
    const marker =
      /\n\[… (\d+) bytes omitted; the full output \((\d+) bytes\) is in (\S+) — read parts of it with Read \(offset and limit\) or search it with Grep\]\n/.exec(
        shown,
      )
    expect(marker).not.toBeNull()
    const [, omitted, total, path] = marker as unknown as [string, string, string, string]
    const saved = readFileSync(path, 'utf8')
    expect(saved.length).toBe(Number(total))
    expect(saved.startsWith('1\n2\n')).toBe(true)
    expect(saved.endsWith('200000\nlast line\n')).toBe(true)
    // What the model sees fits Bash's own result budget: the budget step does not save it a second time.
    expect(shown.length).toBeLessThan(30_000)
    expect(Number(omitted)).toBeGreaterThan(1_000_000)
  })

  it('with a result store that cannot take streamed output, shows the head and tail and says the middle was dropped', async () => {
    const { call } = project({}, { results: { save: async () => '/nowhere' } })
    const shown = text(await call('Bash', { command: 'seq 1 200000' }))
    expect(shown).toMatch(
      /^1\n2\n[\s\S]*\n\[… \d+ bytes omitted; the result store cannot take streamed output, so the middle was dropped and only the beginning and end are shown\]\n[\s\S]*\n200000$/,
    )
  })

  it('reports progress coalesced and bounded, however much the command writes', async () => {
    // The log keeps all progress here, so what the runner reported can be counted.
    const { kernel } = project({}, { progressLogChars: Infinity })
    const { events, message } = await kernel.runTurn(
      assistant(['b', 'Bash', { command: 'head -c 20000000 /dev/zero | tr "\\0" a; echo; echo end' }]),
    )
    const progress = events.filter((e) => e.type === 'tool.progress').map((e) => (e as { data: string }).data)
    expect(progress.length).toBeLessThanOrEqual(200)
    expect(progress.at(-1)).toMatch(/further output is not shown as progress/)
    expect(text(message.content[0] as never)).toMatch(/a+\nend$/)
  })

  it('stops a command past the output cap with an error that says where its output is', async () => {
    const { call } = project()
    const block = await call('Bash', { command: 'head -c 500000000 /dev/zero | tr "\\0" a' })
    expect(block.is_error).toBe(true)
    const shown = text(block)
    expect(shown).toMatch(
      /^Bash failed: the command wrote more than 64 MiB of output and was stopped; its first 64 MiB are saved in (\S+)\. Redirect the output of such a command to a file \(command > out\.txt 2>&1\) and read parts of it with Read or Grep\./,
    )
    const path = /saved in (\S+)\./.exec(shown)?.[1] as string
    expect(statSync(path).size).toBe(64 * 1024 * 1024)
  })

  it('keeps memory bounded while a command writes 500 MB (peak RSS < 100 MB above baseline)', async () => {
    const { call } = project()
    const status = () => readFileSync('/proc/self/status', 'utf8')
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status())?.[1] ?? NaN)
    // Warm up the same path first (modules, JIT, the heap's young generation), so what is measured
    // is what the 500 MB cost, not the first call's start-up; resetting the peak makes VmHWM the
    // peak of the measured call alone.
    await call('Bash', { command: 'seq 1 200000' })
    writeFileSync('/proc/self/clear_refs', '5')
    const baseline = kb('VmRSS')
    await call('Bash', { command: 'yes | head -c 500000000' })
    const growthMb = (kb('VmHWM') - baseline) / 1024
    console.log(`peak RSS growth while Bash ran yes | head -c 500000000: ${growthMb.toFixed(1)} MB`)
    expect(growthMb).toBeLessThan(100)
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

describe("Bash's verdicts come from the shell analysis the kernel hands it", () => {
  // A stand-in analysis that contradicts the real one (`touch x` read-only, `ls` not), so a tool
  // that judged commands any other way would fail here.
  const shell: ShellAnalyzer = {
    readOnly: (command) => (command === 'touch x' ? { readOnly: true } : { readOnly: false, reason: 'r' }),
  }
  const context = { ports: { shell } } as unknown as ToolContext

  it('read-only, concurrency-safe and not destructive exactly when the analysis says so', () => {
    for (const [command, readOnly] of [
      ['touch x', true],
      ['ls', false],
    ] as const) {
      expect(Bash.isReadOnly({ command }, { shell })).toBe(readOnly)
      expect(Bash.isConcurrencySafe({ command }, { shell })).toBe(readOnly)
      expect(Bash.isDestructive({ command }, { shell })).toBe(!readOnly)
    }
  })

  it('checkPermissions allows what the analysis calls read-only and asks with its reason otherwise', async () => {
    expect(await Bash.checkPermissions({ command: 'touch x' }, context)).toEqual({ behavior: 'allow' })
    expect(await Bash.checkPermissions({ command: 'ls' }, context)).toEqual({
      behavior: 'ask',
      message: 'the command may change things (r): ls',
    })
  })

  it('asked without an analysis, no command is read-only or safe (fail-closed), even one that only reads', () => {
    expect(Bash.isReadOnly({ command: 'ls' })).toBe(false)
    expect(Bash.isConcurrencySafe({ command: 'ls' })).toBe(false)
    expect(Bash.isDestructive({ command: 'ls' })).toBe(true)
  })

  it('a context without the shell port asks, naming the missing analysis', async () => {
    const bare = { ports: {} } as unknown as ToolContext
    expect(await Bash.checkPermissions({ command: 'ls' }, bare)).toEqual({
      behavior: 'ask',
      message: 'the command may change things (no shell analysis was given): ls',
    })
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
    'cat <(rm x)',
    'sort -o out.txt in.txt',
    'FOO=1 ls',
    'npm test',
    'uniq in out',
    '',
    'echo "unterminated',
  ]
  // The grammar sees what the tokenizer could not: a variable from the environment as an argument
  // of ls, and ls in the background, only read.
  readOnly.push('ls $HOME', 'ls &')
  beforeAll(async () => {
    await loadBashGrammar()
  })
  it.each(readOnly)('%s is read-only', (command) => expect(readOnlyVerdict(command)).toEqual({ readOnly: true }))
  it.each(writes)('%s is not', (command) => expect(readOnlyVerdict(command).readOnly).toBe(false))
})
