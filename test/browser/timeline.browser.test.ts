/**
 * The HTML timeline in a real browser: headless Chromium driven by puppeteer-core over a pipe.
 * One browser for the file, a fresh profile in a temp dir, closed in afterAll. Logs come from
 * the real kernel (timeline-logs.ts). The screenshot is kept in reports/browser/ and, with
 * UPDATE_SCREENSHOT=1, written to docs/timeline.png. Load times are reported, never asserted.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Page } from 'puppeteer-core'
import { describe, expect, it } from 'vitest'
import type { KernelEvent } from '../../src/index.js'
import { timelineCommand } from '../../src/cli/commands.js'
import { runDemo } from '../../src/cli/demo.js'
import { readJsonlFile } from '../../src/index.js'
import { timelineHtml } from '../../src/projections/timeline-html.projection.js'
import { chromium } from '../programs.js'
import {
  attrs,
  clickCall,
  type G,
  ARTIFACTS,
  sharedBrowser,
  type Opened,
  openTimeline,
  texts,
  waitForText,
} from './chromium-page.js'
import { HOSTILE_IMG, HOSTILE_SCRIPT, hostileSession, largeSession } from './timeline-logs.js'

const DOCS_SCREENSHOT = fileURLToPath(new URL('../../docs/timeline.png', import.meta.url))

describe.skipIf(!chromium)('the HTML timeline in headless Chromium (needs Chromium on PATH)', () => {
  const shared = sharedBrowser('toolkernel-timeline-browser-')

  async function open(events: readonly KernelEvent[] | { file: string }, name: string): Promise<Opened> {
    const file = 'file' in events ? events.file : join(shared.dir, `${name}.html`)
    if (!('file' in events)) writeFileSync(file, timelineHtml(events, `toolkernel timeline — ${name}`))
    return openTimeline(shared.browser, file)
  }

  const box = async (page: Page, selector: string) => {
    const handle = await page.$(selector)
    const b = await handle?.boundingBox()
    if (b === null || b === undefined) throw new Error(`${selector} is not on the page`)
    return b
  }
  /** Waits until the bar of call `id` is wider than `min` (or, with `max`, narrower), or ends left of `rightBelow`. */
  const waitForBar = (page: Page, id: string, want: { min?: number; max?: number; rightBelow?: number }) =>
    page.waitForFunction(
      (callId: string, w: { min?: number; max?: number; rightBelow?: number }) => {
        const rect = (globalThis as unknown as G).document
          .querySelector(`.row.call[data-call="${callId}"] .bar`)
          ?.getBoundingClientRect()
        if (rect === undefined) return false
        return (
          (w.min === undefined || rect.width > w.min) &&
          (w.max === undefined || rect.width < w.max) &&
          (w.rightBelow === undefined || rect.right < w.rightBelow)
        )
      },
      {},
      id,
      want,
    )
  const detail = (page: Page) => page.$eval('#detail', (node) => node.textContent ?? '')

  it('one time axis with tick labels, turns on it in order, each call a bar split into segments, by outcome', async () => {
    const { page, requests, errors } = await open(shared.demo, 'demo')
    const ticks = await texts(page, '#axis .tick')
    expect(ticks.length).toBeGreaterThanOrEqual(3)
    for (const tick of ticks) expect(tick).toMatch(/^\d+(\.\d+)? (ms|s)$/)
    const tickX = await page.$$eval('#axis .tick', (nodes) => nodes.map((n) => n.getBoundingClientRect().left))
    expect(tickX).toEqual([...tickX].sort((a, b) => a - b))

    const turnIds = [...new Set(shared.demo.filter((e) => e.type === 'turn.started').map((e) => e.turnId))]
    expect(await attrs(page, '.row.turn', 'data-turn')).toEqual(turnIds)
    const ids = shared.demo.flatMap((e) => (e.type === 'tool.requested' ? [e.toolUseId] : []))
    expect(await attrs(page, '.row.call', 'data-call')).toEqual(ids)
    expect(await page.$$eval('.row.call .bar', (bars) => bars.length)).toBe(ids.length)

    const kinds = new Set(await attrs(page, '.seg', 'data-kind'))
    for (const kind of ['queued', 'checks', 'hooks', 'permission', 'running', 'budget', 'finishing'])
      expect(kinds, kind).toContain(kind)
    // The write: a pre-hook, then 800 ms waiting for the user, then 120 ms running, in that order.
    const write = '.row.call[data-call="toolu_write"] .seg'
    const writeKinds = await attrs(page, write, 'data-kind')
    expect(writeKinds.filter((k) => ['hooks', 'permission', 'running'].includes(k))).toEqual([
      'hooks',
      'permission',
      'permission',
      'running',
    ])
    const widths = await page.$$eval(write, (segs) =>
      segs.map((s) => [s.getAttribute('data-kind'), s.getBoundingClientRect().width] as const),
    )
    const width = (kind: string) => Math.max(...widths.filter(([k]) => k === kind).map(([, w]) => w))
    expect(width('permission')).toBeGreaterThan(width('running') * 4)

    expect(await attrs(page, '.row.call[data-call="toolu_load"] .bar', 'data-outcome')).toEqual(['error'])
    const running = (id: string) =>
      page.$eval(
        `.row.call[data-call="${id}"] .seg[data-kind="running"]`,
        (s) => (globalThis as unknown as G).getComputedStyle(s).backgroundColor,
      )
    expect(await running('toolu_load')).toBe('rgb(198, 40, 40)')
    expect(await running('toolu_a')).toBe('rgb(46, 125, 50)')
    // One axis for the session: the last turn's calls sit to the right of the first turn's.
    expect((await box(page, '[data-call="toolu_report"] .bar')).x).toBeGreaterThan(
      (await box(page, '[data-call="toolu_e"] .bar')).x + 100,
    )
    expect(await texts(page, '#shown')).toEqual(['showing 11 of 11 calls'])
    expect(requests).toHaveLength(1)
    expect(errors).toEqual([])
    await page.close()
  })

  it('zooms and pans with the buttons, the wheel over the axis, keys, and a drag', async () => {
    const { page } = await open(shared.demo, 'zoom')
    const bar = '[data-call="toolu_write"] .bar'
    const full = await box(page, bar)
    const fullE = await box(page, '[data-call="toolu_e"] .bar')
    await page.click('#z-in')
    await waitForBar(page, 'toolu_write', { min: full.width * 1.5 })
    await page.click('#z-fit')
    await waitForBar(page, 'toolu_write', { min: full.width - 1, max: full.width + 1 })

    const axis = await box(page, '#axis')
    await page.mouse.move(full.x + full.width / 2, axis.y + axis.height / 2)
    const ticksBefore = await texts(page, '#axis .tick')
    await page.mouse.wheel({ deltaY: -400 })
    await waitForBar(page, 'toolu_write', { min: full.width * 1.1 })
    expect(await texts(page, '#axis .tick')).not.toEqual(ticksBefore)

    // Clicking a turn zooms to it; a drag to the left then moves later times into view.
    await page.click('.row.turn .label')
    const right = (id: string) => page.$eval(`[data-call="${id}"] .bar`, (b) => b.getBoundingClientRect().right)
    await waitForBar(page, 'toolu_e', { min: fullE.width * 5 })
    const before = await right('toolu_e')
    const row = await box(page, '[data-call="toolu_e"]')
    await page.mouse.move(before - 10, row.y + row.height / 2)
    await page.mouse.down()
    await page.mouse.move(before - 210, row.y + row.height / 2, { steps: 5 })
    await page.mouse.up()
    await waitForBar(page, 'toolu_e', { rightBelow: before - 150 })
    // A drag is not a click: nothing was selected by it.
    expect(await page.$$eval('.row.selected', (r) => r.length)).toBe(0)

    await page.keyboard.press('0')
    await waitForBar(page, 'toolu_write', { min: full.width - 1, max: full.width + 1 })
    await page.close()
  })

  it('clicking a call opens its detail: input, each hook answer, the permission decision and who made it, its events', async () => {
    const { page } = await open(shared.demo, 'detail')
    await clickCall(page, 'toolu_write')
    await waitForText(page, '#detail h2', 'Writer · toolu_write')
    // The rows are redrawn on the next frame: wait for the selected one before reading them.
    await page.waitForSelector('.row.selected[data-call="toolu_write"]')
    expect(await page.$$eval('.row.selected', (rows) => rows.map((r) => r.getAttribute('data-call')))).toEqual([
      'toolu_write',
    ])
    const text = await detail(page)
    expect(text).toContain('"note": "remember the milk"')
    expect(text).toContain('pre-hook PreToolUse[0].hooks[0] (audit): continue')
    expect(text).toContain('notes are kept for a week')
    expect(text).toMatch(/decisionallow/)
    expect(text).toContain('decided byuser (canUseTool)')
    expect(text).toContain('asked the userthe rule Writer asks first')
    expect(text).toMatch(/waited80\d ms/)
    expect(text).toContain('wrote 17 characters')
    const own = shared.demo.filter((e) => 'toolUseId' in e && e.toolUseId === 'toolu_write')
    const eventRows = await page.$$eval('#detail tr', (rows) =>
      rows.map((r) => r.querySelector('td:last-child div')?.textContent).filter((t) => t !== undefined),
    )
    expect(eventRows.slice(-own.length)).toEqual(own.map((e) => e.type))

    await clickCall(page, 'toolu_load')
    await waitForText(page, '#detail h2', 'Load · toolu_load')
    expect(await detail(page)).toContain('outcomeerror (tool_error)')
    expect(await detail(page)).toContain('no such file /data/missing.csv')
    await clickCall(page, 'toolu_report')
    await waitForText(page, '#detail h2', 'Report · toolu_report')
    expect(await detail(page)).toMatch(/Output persistedpath\S+toolu_report\S*characters\d+/)
    await clickCall(page, 'toolu_danger')
    await waitForText(page, '#detail h2', 'Danger · toolu_danger')
    expect(await detail(page)).toContain('decisiondenydecided byrule')
    await page.keyboard.press('Escape')
    await waitForText(page, '#detail h2', null)
    await page.close()
  })

  it('filters by outcome, tool, turn and id; the summary counts, names the slowest calls and the error classes', async () => {
    const { page } = await open(shared.demo, 'filters')
    const summary = await page.$eval('#summary', (node) => node.textContent ?? '')
    expect(summary).toContain('11 call(s) in 3 turn(s)')
    expect(summary).toContain('success 6')
    expect(summary).toContain('error 5')
    for (const errorClass of ['hook_blocked', 'invalid_input', 'permission_denied', 'tool_error', 'unknown_tool'])
      expect(summary).toContain(`${errorClass} 1`)
    expect((await texts(page, '#summary ol li'))[0]).toMatch(/^9\d\d ms · (Writer · toolu_write|Lookup · toolu_bad)$/)

    await page.select('#f-outcome', 'error')
    await waitForText(page, '#shown', 'showing 5 of 11 calls')
    expect(await attrs(page, '.row.call', 'data-outcome')).toEqual(Array(5).fill('error'))
    await page.select('#f-outcome', '')
    await page.select('#f-tool', 'Lookup')
    await waitForText(page, '#shown', 'showing 6 of 11 calls')
    expect(new Set(await texts(page, '.row.call .tool'))).toEqual(new Set(['Lookup']))
    await page.select('#f-turn', '0')
    await waitForText(page, '#shown', 'showing 4 of 11 calls')
    expect(await page.$$eval('.row.turn', (rows) => rows.length)).toBe(1)
    await page.select('#f-tool', '')
    await page.select('#f-turn', '')
    await page.type('#f-text', 'toolu_se')
    await waitForText(page, '#shown', 'showing 1 of 11 calls')
    expect(await attrs(page, '.row.call', 'data-call')).toEqual(['toolu_secret'])
    await page.close()
  })

  it('takes a screenshot of a call opened in the timeline (kept in reports/browser, docs with UPDATE_SCREENSHOT=1)', async () => {
    const { page } = await open(shared.demo, 'demo session')
    await clickCall(page, 'toolu_write')
    await page.waitForSelector('#detail h2')
    const path = join(ARTIFACTS, 'timeline.png')
    await page.screenshot({ path })
    const png = readFileSync(path)
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    if (process.env.UPDATE_SCREENSHOT === '1') writeFileSync(DOCS_SCREENSHOT, png)
    await page.close()
  })

  it('the page `toolkernel timeline --html` writes for the log of `toolkernel demo` opens whole, with nothing loaded', async () => {
    const log = join(shared.dir, 'demo.jsonl')
    await runDemo({ logPath: log, out: () => {} })
    const file = join(shared.dir, 'demo-cli.html')
    const lines: string[] = []
    expect(timelineCommand(readJsonlFile(log).events, file, log, (line) => lines.push(line))).toBe(0)
    expect(lines).toEqual([`wrote ${file}`, `open ${pathToFileURL(file).href} in a browser`])
    const { page, requests, errors } = await open({ file }, 'demo-cli')
    expect(errors).toEqual([])
    expect(requests).toEqual([pathToFileURL(file).href])
    expect(await page.$$eval('.row.call', (rows) => rows.length)).toBe(11)
    expect(await attrs(page, '.row.call[data-call="toolu_10_curl"] .bar', 'data-outcome')).toEqual(['error'])
    await clickCall(page, 'toolu_10_curl')
    await waitForText(page, '#detail h2', 'Bash · toolu_10_curl')
    expect(await detail(page)).toContain('outcomeerror (hook_blocked)')
    await page.close()
  }, 60_000)

  it('a log full of </script> and onerror= runs no script, loads nothing, and shows the text as text', async () => {
    const events = await hostileSession()
    const { page, requests, dialogs, errors } = await open(events, 'hostile')
    expect(await page.evaluate(() => (globalThis as unknown as G).__pwned)).toBeUndefined()
    expect(dialogs).toEqual([])
    expect(errors).toEqual([])
    expect(requests).toHaveLength(1)
    expect(await page.evaluate(() => (globalThis as unknown as G).__violations)).toEqual([])
    expect(await page.$$eval('img', (imgs) => imgs.length)).toBe(0)
    expect(await page.$$eval('script', (scripts) => scripts.length)).toBe(3)
    expect(await texts(page, '.row.call .tool')).toEqual(['Echo', 'Echo', HOSTILE_SCRIPT])
    expect(await texts(page, '.row.call .id')).toContain(`id${HOSTILE_SCRIPT}`)
    await page.click('.row.call[data-call="img"] .label')
    await page.waitForSelector('#detail h2')
    const input = await page.$eval('#detail pre', (node) => node.textContent)
    expect(input).toBe(JSON.stringify({ text: `${HOSTILE_IMG}\u2028\u2029<!--` }, null, 2))
    await page.click('.row.call[data-call="name"] .label')
    await waitForText(page, '#detail h2', `${HOSTILE_SCRIPT} · name`)
    expect(await page.$eval('#detail h2', (node) => node.textContent)).toBe(`${HOSTILE_SCRIPT} · name`)
    expect(await page.evaluate(() => (globalThis as unknown as G).__pwned)).toBeUndefined()
    expect(dialogs).toEqual([])
    await page.close()
  })

  it('a log of 10⁴ calls opens with only the rows in view drawn, scrolls to its end, and filters (load time reported)', async () => {
    const events = await largeSession(100, 100)
    const { page, readyMark, wallMs, errors } = await open(events, 'large')
    const size = Buffer.byteLength(readFileSync(join(shared.dir, 'large.html')))
    const report = { calls: 10_000, events: events.length, htmlBytes: size, readyMarkMs: readyMark, wallMs }
    console.info(`[timeline] 10^4 calls: ${JSON.stringify(report)}`)
    writeFileSync(join(ARTIFACTS, 'large-load.json'), `${JSON.stringify(report, null, 2)}\n`)
    expect(errors).toEqual([])
    expect(await texts(page, '#shown')).toEqual(['showing 10000 of 10000 calls'])
    expect(await page.$$eval('.row', (rows) => rows.length)).toBeLessThan(100)
    await page.$eval('#rows', (rows) => rows.scrollTo(0, rows.scrollHeight))
    await page.waitForSelector('.row.call[data-call="toolu_99_99"]')
    await page.type('#f-text', 'toolu_42_7')
    await waitForText(page, '#shown', 'showing 11 of 10000 calls')
    expect(await attrs(page, '.row.call', 'data-call')).toEqual([
      'toolu_42_7',
      ...Array.from({ length: 10 }, (_, i) => `toolu_42_7${i}`),
    ])
    await page.close()
  }, 120_000)
})
