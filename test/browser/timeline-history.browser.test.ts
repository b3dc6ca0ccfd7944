/**
 * The timeline page's event history, a turn's messages and the links into the page, in headless
 * Chromium (chromium-page.ts) on logs of the real kernel (timeline-logs.ts): every event listed,
 * a row's JSON, the filter, the messages beside their turn, `#call=`/`#event=`/`#turn=` fragments
 * and their notice, and hostile logs inert in all of it. Times are reported, never asserted; the
 * screenshot of an opened event is kept in reports/browser/ (docs/ with UPDATE_SCREENSHOT=1).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'puppeteer-core'
import { describe, expect, it } from 'vitest'
import type { KernelEvent } from '../../src/index.js'
import { projectMessages } from '../../src/projections/messages.projection.js'
import { projectEventHistory } from '../../src/projections/timeline-history.projection.js'
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
  typeHistoryFilter,
  waitForText,
} from './chromium-page.js'
import { HOSTILE_IMG, HOSTILE_SCRIPT, hostileSession, largeSession } from './timeline-logs.js'

const DOCS_SCREENSHOT = fileURLToPath(new URL('../../docs/timeline-history.png', import.meta.url))

describe.skipIf(!chromium)('the timeline page’s event history, messages and links (needs Chromium on PATH)', () => {
  const shared = sharedBrowser('toolkernel-timeline-history-')

  function write(events: readonly KernelEvent[], name: string): string {
    const file = join(shared.dir, `${name}.html`)
    writeFileSync(file, timelineHtml(events, `toolkernel timeline — ${name}`))
    return file
  }
  const open = (events: readonly KernelEvent[], name: string, fragment = ''): Promise<Opened> =>
    openTimeline(shared.browser, write(events, name), fragment)
  const hash = (page: Page) => page.evaluate(() => (globalThis as unknown as G).location.hash)
  const setHash = (page: Page, value: string) =>
    page.evaluate((h: string) => void ((globalThis as unknown as G).location.hash = h), value)
  const shownEvents = (page: Page) => attrs(page, '#h-rows tr.ev', 'data-seq')
  const inert = async ({ page, requests, dialogs, errors }: Opened) => {
    expect(await page.evaluate(() => (globalThis as unknown as G).__pwned)).toBeUndefined()
    expect(await page.evaluate(() => (globalThis as unknown as G).__violations)).toEqual([])
    expect(await page.$$eval('img', (imgs) => imgs.length)).toBe(0)
    expect(await page.$$eval('script', (scripts) => scripts.length)).toBe(3)
    expect([dialogs, errors, requests.length]).toEqual([[], [], 1])
  }

  it('the history lists every event of the log in order; a row opens to its JSON; the filter narrows the rows', async () => {
    const { page, errors } = await open(shared.demo, 'history')
    await page.click('#tab-history')
    await waitForText(page, '#h-shown', `showing ${shared.demo.length} of ${shared.demo.length} events`)
    expect(await page.$eval('#main', (m) => (m as unknown as { offsetParent: unknown }).offsetParent)).toBeNull()
    expect(await shownEvents(page)).toEqual(shared.demo.map((e) => String(e.seq)))
    expect(await attrs(page, '#h-rows tr.ev', 'data-type')).toEqual(shared.demo.map((e) => e.type))

    const permitted = shared.demo.find((e) => e.type === 'tool.permitted' && e.toolUseId === 'toolu_write')
    if (permitted === undefined) throw new Error('the demo has no permission decision for the write')
    const row = `#h-rows tr.ev[data-seq="${permitted.seq}"]`
    expect(await texts(page, `${row} td`)).toEqual([
      String(permitted.seq),
      expect.stringMatching(/^\+\d/),
      'tool.permitted',
      'T2 · toolu_write',
      expect.stringMatching(/^permission allow by user/),
    ])
    await page.click(`${row} td.what`)
    await page.waitForSelector(`${row} + tr.json pre`)
    const json = await page.$eval(`${row} + tr.json pre`, (node) => node.textContent ?? '')
    expect(JSON.parse(json)).toEqual(permitted)
    expect(await hash(page)).toBe(`#event=${permitted.seq}`)
    expect(await attrs(page, row, 'aria-expanded')).toEqual(['true'])
    const shot = join(ARTIFACTS, 'timeline-history.png')
    await page.screenshot({ path: shot })
    if (process.env.UPDATE_SCREENSHOT === '1') writeFileSync(DOCS_SCREENSHOT, readFileSync(shot))
    await page.click(`${row} td.what`)
    await page.waitForFunction(
      (sel: string) => !(globalThis as unknown as G).document.querySelector(sel),
      {},
      `${row} + tr.json`,
    )

    await page.select('#h-type', 'tool.result')
    await waitForText(page, '#h-shown', `showing 11 of ${shared.demo.length} events`)
    expect(new Set(await attrs(page, '#h-rows tr.ev', 'data-type'))).toEqual(new Set(['tool.result']))
    // Free text looks through each event's summary and whole JSON.
    await page.select('#h-type', '')
    await typeHistoryFilter(page, 'Milk')
    const history = projectEventHistory(shared.demo)
    const milk = history.filter(([s, e]) => `${s}\n${JSON.stringify(e)}`.toLowerCase().includes('milk'))
    await waitForText(page, '#h-shown', `showing ${milk.length} of ${shared.demo.length} events`)
    expect(milk.map(([, e]) => e.type)).toContain('tool.requested')
    expect(await shownEvents(page)).toEqual(milk.map(([, e]) => String(e.seq)))
    await page.click('#h-text', { count: 3 })
    await page.keyboard.press('Backspace')
    await typeHistoryFilter(page, 'toolu_load')
    const load = shared.demo.filter((e) => 'toolUseId' in e && e.toolUseId === 'toolu_load')
    await waitForText(page, '#h-shown', `showing ${load.length} of ${shared.demo.length} events`)
    expect(await shownEvents(page)).toEqual(load.map((e) => String(e.seq)))

    // A row's call opens on the timeline, and the fragment names it.
    await page.click('#h-rows tr.ev button.link')
    await waitForText(page, '#detail h2', 'Load · toolu_load')
    expect(await attrs(page, '#tab-timeline', 'aria-selected')).toEqual(['true'])
    expect(await hash(page)).toBe('#call=toolu_load')
    expect(errors).toEqual([])
    await page.close()
  })

  it('a turn shows its messages beside its calls: the tool_use blocks the log has, and the tool_result message', async () => {
    const { page } = await open(shared.demo, 'messages')
    const turnId = shared.demo.filter((e) => e.type === 'turn.started')[1]?.turnId ?? ''
    await page.click(`.row.turn[data-turn="${turnId}"] .label`)
    await waitForText(page, '#detail h2', `Turn 2 · ${turnId}`)
    expect(await hash(page)).toBe(`#turn=${turnId}`)
    const detail = await page.$eval('#detail', (node) => node.textContent ?? '')
    expect(detail).toContain('not its text or thinking blocks')
    expect(await attrs(page, '#detail .block.tool_use', 'data-id')).toEqual(['toolu_write', 'toolu_bad'])
    const uses = await page.$$eval('#detail .block.tool_use pre', (nodes) => nodes.map((n) => n.textContent ?? ''))
    expect(uses.map((u) => JSON.parse(u) as unknown)).toEqual([
      { type: 'tool_use', id: 'toolu_write', name: 'Writer', input: { note: 'remember the milk' } },
      { type: 'tool_use', id: 'toolu_bad', name: 'Lookup', input: { wrong: 1 } },
    ])
    const results = await page.$$eval('#detail .block.tool_result pre', (nodes) =>
      nodes.map((n) => n.textContent ?? ''),
    )
    expect(results.map((r) => JSON.parse(r) as unknown)).toEqual(projectMessages(shared.demo)[1]?.content)
    expect(await texts(page, '#detail .block.tool_result .block-head')).toEqual([
      'tool_result · toolu_write',
      'tool_result · toolu_bad · is_error',
    ])
    await page.screenshot({ path: join(ARTIFACTS, 'timeline-turn-messages.png') })
    // The turn's row is marked, not selected like a call; a block opens its call.
    expect(await attrs(page, '.row.turn.current', 'data-turn')).toEqual([turnId])
    await page.click('#detail .block.tool_use[data-id="toolu_bad"] button')
    await waitForText(page, '#detail h2', 'Lookup · toolu_bad')
    await page.click('#detail .tools button:nth-child(2)')
    await waitForText(page, '#detail h2', `Turn 2 · ${turnId}`)
    await page.close()
  })

  it('#call= opens that call, #event= that event, an unknown one says so; clicks keep the fragment in step', async () => {
    const { page } = await open(shared.demo, 'links', '#call=toolu_load')
    await waitForText(page, '#detail h2', 'Load · toolu_load')
    await page.waitForSelector('.row.selected[data-call="toolu_load"]')
    expect(await page.$eval('#notice', (n) => (n as unknown as { hidden: boolean }).hidden)).toBe(true)

    await setHash(page, '#call=toolu_nope')
    await waitForText(page, '#notice-text', 'No call with the id toolu_nope in this log.')
    expect(await page.$eval('#notice', (n) => (n as unknown as { hidden: boolean }).hidden)).toBe(false)
    await setHash(page, '#frobnicate')
    await page.waitForFunction(() =>
      (globalThis as unknown as G).document
        .querySelector('#notice-text')
        ?.textContent?.startsWith('This page cannot open'),
    )

    // A call hidden by the filters is still found: the filters give way.
    await page.select('#f-outcome', 'error')
    await waitForText(page, '#shown', 'showing 5 of 11 calls')
    await setHash(page, '#call=toolu_a')
    await waitForText(page, '#detail h2', 'Lookup · toolu_a')
    await waitForText(page, '#shown', 'showing 11 of 11 calls')
    await page.waitForSelector('.row.selected[data-call="toolu_a"]')
    expect(await page.$eval('#notice', (n) => (n as unknown as { hidden: boolean }).hidden)).toBe(true)

    const result = shared.demo.find((e) => e.type === 'tool.result' && e.toolUseId === 'toolu_report')
    await setHash(page, `#event=${result?.seq}`)
    await page.waitForSelector(`#h-rows tr.ev.target.open[data-seq="${result?.seq}"] + tr.json pre`)
    expect(await attrs(page, '#tab-history', 'aria-selected')).toEqual(['true'])
    await setHash(page, '#event=99999')
    await waitForText(page, '#notice-text', 'No event with the seq 99999 in this log.')

    await page.click('#tab-timeline')
    await clickCall(page, 'toolu_write')
    await waitForText(page, '#detail h2', 'Writer · toolu_write')
    expect(await hash(page)).toBe('#call=toolu_write')
    await page.keyboard.press('Escape')
    await waitForText(page, '#detail h2', null)
    expect(await hash(page)).toBe('')
    await page.close()
  })

  it('a log full of </script> and onerror= stays inert in the history, the messages, the links and the notice', async () => {
    const events = await hostileSession()
    const opened = await open(events, 'hostile', `#call=${encodeURIComponent(`id${HOSTILE_SCRIPT}`)}`)
    const { page } = opened
    await waitForText(page, '#detail h2', `Echo · id${HOSTILE_SCRIPT}`)

    await page.click('.row.turn .label')
    await page.waitForSelector('#detail .block.tool_result')
    expect(await attrs(page, '#detail .block.tool_use', 'data-id')).toEqual([`id${HOSTILE_SCRIPT}`, 'img', 'name'])
    const uses = await page.$$eval('#detail .block.tool_use pre', (nodes) => nodes.map((n) => n.textContent ?? ''))
    expect(JSON.parse(uses[2] ?? '')).toEqual({
      type: 'tool_use',
      id: 'name',
      name: HOSTILE_SCRIPT,
      input: { [HOSTILE_IMG]: HOSTILE_SCRIPT },
    })

    await page.click('#tab-history')
    await waitForText(page, '#h-shown', `showing ${events.length} of ${events.length} events`)
    expect(await texts(page, '#h-rows tr.ev button.link')).toContain(`id${HOSTILE_SCRIPT}`)
    // Open every event's JSON: the markup in it shows as text.
    const rows = await attrs(page, '#h-rows tr.ev', 'data-seq')
    for (const seq of rows) await page.click(`#h-rows tr.ev[data-seq="${seq}"] td.what`)
    const jsons = await page.$$eval('#h-rows tr.json pre', (nodes) => nodes.map((n) => n.textContent ?? ''))
    expect(jsons.map((j) => JSON.parse(j) as unknown)).toEqual(projectEventHistory(events).map(([, e]) => e))
    expect(jsons.join('\n')).toContain(HOSTILE_IMG.replace(/"/g, '\\"'))
    await typeHistoryFilter(page, HOSTILE_SCRIPT)
    await page.waitForFunction(() =>
      /^showing [1-9]/.test((globalThis as unknown as G).document.querySelector('#h-shown')?.textContent ?? ''),
    )

    await setHash(page, `#call=${encodeURIComponent(HOSTILE_IMG)}`)
    await waitForText(page, '#notice-text', `No call with the id ${HOSTILE_IMG} in this log.`)
    await setHash(page, `#turn=${encodeURIComponent(HOSTILE_SCRIPT)}`)
    await waitForText(page, '#notice-text', `No turn with the id ${HOSTILE_SCRIPT} in this log.`)
    await inert(opened)
    await page.close()
  })

  it('a log of 10⁴ calls: a fragment opens a call and an event far down; the history draws a chunk at a time (times reported)', async () => {
    const events = await largeSession(100, 100)
    const file = write(events, 'large-links')
    const call = await openTimeline(shared.browser, file, '#call=toolu_99_99')
    await waitForText(call.page, '#detail h2', 'Echo · toolu_99_99')
    await call.page.waitForSelector('.row.selected[data-call="toolu_99_99"]')
    expect(await call.page.$$eval('.row', (rows) => rows.length)).toBeLessThan(100)
    const started = performance.now()
    await call.page.click('#tab-history')
    await waitForText(call.page, '#h-shown', `showing ${events.length} of ${events.length} events`)
    const historyMs = performance.now() - started
    expect(await call.page.$$eval('#h-rows tr.ev', (rows) => rows.length)).toBe(200)
    // The button adds 200 rows; so does scrolling to the end. (A real click would scroll the
    // button into view and race the scroll's own addition, so the button is pressed in the page.)
    const drawn = (i: number) =>
      call.page.waitForFunction(
        (sel: string) => (globalThis as unknown as G).document.querySelector(sel) !== null,
        {},
        `#h-rows tr.ev[data-i="${i}"]`,
      )
    await call.page.$eval('#h-rows tr.more.later button', (b) => (b as unknown as { click(): void }).click())
    await drawn(399)
    expect(await call.page.$$eval('#h-rows tr.ev', (rows) => rows.length)).toBe(400)
    await call.page.$eval('#h-scroll', (s) => s.scrollTo(0, s.scrollHeight))
    await drawn(599)
    const filterStarted = performance.now()
    await typeHistoryFilter(call.page, 'toolu_42_7"')
    const ownEvents = events.filter((e) => 'toolUseId' in e && e.toolUseId === 'toolu_42_7').length
    await waitForText(call.page, '#h-shown', `showing ${ownEvents} of ${events.length} events`)
    const filterMs = performance.now() - filterStarted
    await call.page.close()

    const last = events.at(-1)
    const event = await openTimeline(shared.browser, file, `#event=${last?.seq}`)
    await event.page.waitForSelector(`#h-rows tr.ev.target[data-seq="${last?.seq}"] + tr.json`)
    expect(await event.page.$$eval('#h-rows tr.ev', (rows) => rows.length)).toBeLessThanOrEqual(200)
    await event.page.close()
    const report = {
      events: events.length,
      readyWithCallFragmentMs: call.readyMark,
      openHistoryTabMs: Math.round(historyMs),
      firstTextFilterMs: Math.round(filterMs),
      readyWithEventFragmentMs: event.readyMark,
    }
    console.info(`[timeline] history, 10^4 calls: ${JSON.stringify(report)}`)
    writeFileSync(join(ARTIFACTS, 'large-history.json'), `${JSON.stringify(report, null, 2)}\n`)
  }, 180_000)
})
