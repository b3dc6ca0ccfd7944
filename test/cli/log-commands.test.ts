/** The log commands of the real bin, on the log the demo wrote (npm test builds dist first). */
import { execFile, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
    expect((await fail(['inspect', log])).stderr).toMatch(/inspect needs --at N/)
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
    expect(page).not.toMatch(/<script|<link|https?:\/\//)
    expect(page.match(/class="row"/g)).toHaveLength(11)
    expect(page).toMatch(/data-batch="0"/)
    expect(page).toContain('data-outcome="error"')
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
      expect(dom.stdout.match(/class="row"/g)).toHaveLength(11)
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
