/** The log commands of the real bin, on the log the demo wrote (npm test builds dist first). */
import { execFile, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, createJsonlLog, createKernel } from '../../src/index.js'
import { progressReporter } from '../../src/cli/load-log.js'
import { fixedClock } from '../helpers.js'
import { chromium } from '../programs.js'

const run = promisify(execFile)
const bin = new URL('../../dist/cli/main.js', import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), 'toolkernel-cli-log-'))
const log = join(dir, 'demo.jsonl')
afterAll(() => rmSync(dir, { recursive: true, force: true }))
beforeAll(async () => {
  await run('node', [bin, 'demo', '--log', log])
})

const fail = async (args: string[]) => {
  try {
    await run('node', [bin, ...args])
  } catch (error) {
    return error as { code: number; stdout: string; stderr: string }
  }
  throw new Error(`expected toolkernel ${args.join(' ')} to fail`)
}

describe('toolkernel replay', () => {
  it('prints the timeline and the messages, and re-executes the demo log without divergence', async () => {
    const { stdout } = await run('node', [bin, 'replay', log])
    expect(stdout).toMatch(/^Timeline \(ms since each turn started\):/)
    expect(stdout).toContain('Projected messages:')
    expect(stdout).toContain('Determinism check: ok — 5 turn(s) re-executed, every decision the same.')
  })

  it('exits 1 on a divergence: a log whose recorded decision no longer holds', async () => {
    const text = readFileSync(log, 'utf8').replace('"safe":true', '"safe":false')
    const changed = join(dir, 'changed.jsonl')
    writeFileSync(changed, text)
    const error = await fail(['replay', changed, '--quiet'])
    expect(error.code).toBe(1)
    expect(error.stdout).toMatch(
      /Determinism check: DIVERGENCE in turn \S+ at event \d+: the log has tool\.queued .*"safe":false.* but the engine now decides tool\.queued .*"safe":true/,
    )
  })
})

describe('toolkernel inspect, stats, timeline', () => {
  it('inspect --at N shows each call as it stood after event N', async () => {
    const { stdout } = await run('node', [bin, 'inspect', log, '--at', '10'])
    expect(stdout).toMatch(/^After event 10 \(/)
    expect(stdout).toMatch(/toolu_01_grep\s+Grep\s+/)
    expect((await fail(['inspect', log, '--at', '99999'])).stderr).toMatch(/--at must be an event number from 0 to \d+/)
  })

  it('inspect without --at shows each call in its final state', async () => {
    const last = readFileSync(log, 'utf8').trim().split('\n').length - 1
    const { stdout } = await run('node', [bin, 'inspect', log])
    expect(stdout).toMatch(new RegExp(`^After event ${last} \\(turn\\.completed\\), the end of the log:\n`))
    expect(stdout.match(/^ {2}toolu_\S+ .* done \(\w+\)/gm)).toHaveLength(11)
    const atLast = await run('node', [bin, 'inspect', log, '--at', String(last)])
    expect(stdout.replace(', the end of the log:', ':')).toBe(atLast.stdout)
  })

  it('inspect refuses an --at that is not an event number; a command refuses an option it does not take', async () => {
    for (const at of ['', '1.5', '0x10', '-1', 'last']) {
      const error = await fail(['inspect', log, `--at=${at}`])
      expect(error.stderr).toContain(`toolkernel inspect: --at must be an event number from 0 to `)
      expect(error.stderr).toContain(`, got ${JSON.stringify(at)}`)
      expect(error.code).toBe(2)
    }
    const stray = await fail(['stats', log, '--at', '3'])
    expect(stray.stderr).toMatch(
      /^toolkernel stats: unknown option '--at' \(toolkernel stats --help lists its options\)/,
    )
    expect(stray.code).toBe(2)
    const none = await fail(['stats'])
    expect(none.stderr).toMatch(/^toolkernel stats: give a log file\n\nusage: toolkernel stats <log>/)
  })

  it('stats counts outcomes, tools and error classes, and splits time into queue wait and execution', async () => {
    const { stdout } = await run('node', [bin, 'stats', log])
    expect(stdout).toMatch(/^\d+ events, 5 turn\(s\), 11 call\(s\)/)
    expect(stdout).toContain('error classes: unknown_tool 1, invalid_input 1, hook_blocked 1, permission_denied 1')
    expect(stdout).toMatch(/queue wait: +median \d+ ms/)
    expect(stdout).toMatch(/execution: +median \d+ ms/)
  })

  it('timeline --html writes a self-contained page with a bar per call, grouped by batch', async () => {
    const html = join(dir, 'timeline.html')
    await run('node', [bin, 'timeline', log, '--html', html])
    const page = readFileSync(html, 'utf8')
    // Self-contained: its own script and style only (a CSP allows nothing else), no network.
    expect(page).not.toMatch(/<script[^>]*\ssrc=|<link|<img|<iframe/)
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`)
    const data = /<script type="application\/json" id="timeline-data">([^<]*)<\/script>/.exec(page)?.[1]
    const { model } = JSON.parse(data ?? 'null') as {
      model: { calls: Array<{ batch: number | null; outcome: string }> }
    }
    expect(model.calls).toHaveLength(11)
    expect(model.calls.some((c) => c.batch === 0)).toBe(true)
    expect(model.calls.some((c) => c.outcome === 'error')).toBe(true)
  })

  it.skipIf(chromium === undefined)(
    'timeline --html renders in headless Chromium (needs Chromium on PATH)',
    async () => {
      const html = join(dir, 'timeline-browser.html')
      await run('node', [bin, 'timeline', log, '--html', html])
      const dom = spawnSync(
        chromium as string,
        [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--no-first-run',
          `--user-data-dir=${join(dir, 'chrome')}`,
          '--dump-dom',
          `file://${html}`,
        ],
        { encoding: 'utf8', timeout: 60_000 },
      )
      expect(dom.stdout.match(/class="row call"/g)).toHaveLength(11)
    },
  )
})

describe('bad log files', () => {
  it('say what is wrong: missing file, not a log, a corrupt line (with --skip-corrupt to go on), a torn last line', async () => {
    expect((await fail(['stats', join(dir, 'missing.jsonl')])).stderr).toContain('no such log file')
    const notLog = join(dir, 'notes.txt')
    writeFileSync(notLog, 'hello\nworld\n')
    expect((await fail(['stats', notLog])).stderr).toMatch(/is not a toolkernel log: line 1: not JSON/)
    const corrupt = join(dir, 'corrupt.jsonl')
    const lines = readFileSync(log, 'utf8').split('\n')
    lines.splice(3, 0, '{"oops": true}')
    writeFileSync(corrupt, lines.join('\n'))
    expect((await fail(['stats', corrupt])).stderr).toMatch(
      /corrupt\.jsonl:4: not a toolkernel event .* \(use --skip-corrupt to go on without it\)/,
    )
    const skipped = await run('node', [bin, 'stats', corrupt, '--skip-corrupt'])
    expect(skipped.stderr).toMatch(/skipping .*corrupt\.jsonl:4/)
    const torn = join(dir, 'torn.jsonl')
    writeFileSync(torn, readFileSync(log, 'utf8'))
    appendFileSync(torn, '{"v":1,"seq":99999,"at":1,"type":"tur')
    expect((await run('node', [bin, 'stats', torn])).stderr).toMatch(/the last line was cut off mid-write/)
  })
})

describe('log files out of order', () => {
  it('are refused with the seq where the order breaks, not replayed as "ok — 0 turn(s)"', async () => {
    const lines = readFileSync(log, 'utf8').split('\n')
    ;[lines[3], lines[4]] = [lines[4] as string, lines[3] as string]
    const swapped = join(dir, 'swapped.jsonl')
    writeFileSync(swapped, lines.join('\n'))
    for (const command of ['replay', 'stats']) {
      const error = await fail([command, swapped])
      expect(error.code).toBe(2)
      expect(error.stderr).toMatch(/swapped\.jsonl: events out of order at seq 3: seq goes back from 4 to 3/)
      expect(error.stdout).not.toContain('Determinism check')
    }
  })
})

describe('log content on the terminal', () => {
  // Everything a model or a tool controls: the call's id, the tool's name, its input, its error.
  const hostile = '\x1b]0;pwned\x07\x1b[2J\rfake line\u009b31m\x00'
  const hostileLog = join(dir, 'hostile.jsonl')
  beforeAll(async () => {
    const Echo = buildTool({
      name: 'Echo',
      description: () => 'Echoes, or fails with the text.',
      inputSchema: z.object({ text: z.string() }),
      isConcurrencySafe: () => true,
      call: async ({ text }) => {
        throw new Error(text)
      },
    })
    const clock = fixedClock()
    const kernel = createKernel({ tools: [Echo], ports: { clock }, log: createJsonlLog(hostileLog, clock), cwd: dir })
    await kernel.runTurn({
      role: 'assistant',
      content: [
        { type: 'tool_use', id: `toolu_${hostile}`, name: 'Echo', input: { text: hostile } },
        { type: 'tool_use', id: 'toolu_2', name: `Ech${hostile}`, input: {} },
      ],
    })
  })
  const settle = async (args: string[]) => {
    try {
      return await run('node', [bin, ...args])
    } catch (error) {
      return error as { stdout: string; stderr: string }
    }
  }

  it.each([['timeline'], ['inspect', '--at', '12'], ['stats'], ['replay']])(
    '%s prints no raw control character, only visible escapes',
    async (...args) => {
      const { stdout, stderr } = await settle([args[0] as string, hostileLog, ...(args.slice(1) as string[])])
      expect(stdout.length).toBeGreaterThan(0)
      expect(stdout + stderr).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/)
      if (args[0] !== 'stats') expect(stdout).toContain('\\x1b')
    },
  )
})

describe('progress while reading a big log', () => {
  it('goes to stderr at most every 10 %, with the amount read', () => {
    const lines: string[] = []
    const MiB = 1024 * 1024
    const report = progressReporter('/logs/big.jsonl', 500 * MiB, (line) => lines.push(line))
    for (let done = 0; done <= 500 * MiB; done += 3 * MiB) report(done)
    report(500 * MiB)
    expect(lines.length).toBeLessThanOrEqual(10)
    expect(lines[0]).toBe('reading /logs/big.jsonl: 10 % (51 MiB)…')
    expect(lines.at(-1)).toBe('reading /logs/big.jsonl: 100 % (500 MiB)…')
  })
})
