/**
 * The browser the timeline's tests share: headless Chromium driven by puppeteer-core over a pipe,
 * a fresh profile in the given directory, and a page opened with everything it does recorded
 * (requests, dialogs, errors, policy violations, time to the page's `timeline-ready` mark).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { afterAll, beforeAll } from 'vitest'
import type { KernelEvent } from '../../src/index.js'
import { chromium } from '../programs.js'
import { demoSession } from './timeline-logs.js'

/** Where the browser tests keep what they measured and their screenshots. */
export const ARTIFACTS = fileURLToPath(new URL('../../reports/browser/', import.meta.url))

/** What a test file's browser suite shares: one browser, a temp directory, the demo session's log. */
export interface SharedBrowser {
  readonly browser: Browser
  readonly dir: string
  readonly demo: KernelEvent[]
}

/**
 * One browser for the describe block it is called in: a temp directory (`prefix`), the demo
 * session recorded there, Chromium started in beforeAll; closed and removed in afterAll.
 */
export function sharedBrowser(prefix: string): SharedBrowser {
  const shared = {} as { browser?: Browser; dir: string; demo: KernelEvent[] }
  beforeAll(async () => {
    shared.dir = mkdtempSync(join(tmpdir(), prefix))
    mkdirSync(ARTIFACTS, { recursive: true })
    shared.demo = await demoSession(join(shared.dir, 'results'))
    shared.browser = await launchChromium(shared.dir)
  }, 60_000)
  afterAll(async () => {
    await shared.browser?.close()
    if (shared.dir !== undefined) rmSync(shared.dir, { recursive: true, force: true })
  })
  return shared as SharedBrowser
}

/**
 * The browser globals the page functions in the tests use, typed here because the project
 * compiles without the DOM library. The functions run in the page: the casts vanish.
 */
export interface G {
  document: {
    querySelector(
      selector: string,
    ): { getBoundingClientRect(): { width: number; right: number }; textContent: string | null } | null
    addEventListener(type: string, listener: (event: { violatedDirective: string }) => void): void
  }
  location: { hash: string; href: string }
  getComputedStyle(element: unknown): { backgroundColor: string }
  requestAnimationFrame(callback: () => void): number
  __pwned?: unknown
  __violations: string[]
}

export interface Opened {
  page: Page
  /** Every request the page made (only its own file is allowed). */
  requests: string[]
  dialogs: string[]
  errors: string[]
  /** Milliseconds from navigation to the page's `timeline-ready` mark, and wall time to ready. */
  readyMark: number
  wallMs: number
}

/** Starts Chromium (`chromium` from test/programs.ts must be set) with its profile under `dir`. */
export function launchChromium(dir: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath: chromium as string,
    headless: false, // --headless is in args, as given, rather than puppeteer's choice of mode
    pipe: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${join(dir, 'profile')}`,
    ],
  })
}

/** Opens a timeline page file (with an optional `#fragment`) and waits until it is drawn. */
export async function openTimeline(browser: Browser, file: string, fragment = ''): Promise<Opened> {
  const page = await browser.newPage()
  await page.setViewport({ width: 1400, height: 900 })
  // Generous: a 34 MB page on a loaded 2-core machine can take several seconds to parse.
  page.setDefaultTimeout(30_000)
  const opened = { page, requests: [] as string[], dialogs: [] as string[], errors: [] as string[] }
  page.on('request', (request) => void opened.requests.push(request.url()))
  page.on('dialog', (dialog) => {
    opened.dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  page.on('pageerror', (error) => void opened.errors.push(String(error)))
  // Anything the policy refused would show up here: there must be nothing to refuse.
  await page.evaluateOnNewDocument(() => {
    const w = globalThis as unknown as G
    w.__violations = []
    w.document.addEventListener('securitypolicyviolation', (e) => w.__violations.push(e.violatedDirective))
  })
  const started = performance.now()
  await page.goto(pathToFileURL(file).href + fragment, { waitUntil: 'load' })
  await page.waitForSelector('body[data-ready="true"]')
  const wallMs = performance.now() - started
  const readyMark = await page.evaluate(() => performance.getEntriesByName('timeline-ready')[0]?.startTime ?? -1)
  return { ...opened, readyMark, wallMs }
}

export const texts = (page: Page, selector: string) =>
  page.$$eval(selector, (nodes) => nodes.map((node) => node.textContent ?? ''))
export const attrs = (page: Page, selector: string, name: string) =>
  page.$$eval(selector, (nodes, n) => nodes.map((node) => node.getAttribute(n) ?? ''), name)

/** Waits until the element's text is `text` (null: until there is no such element). */
export const waitForText = (page: Page, selector: string, text: string | null) =>
  page.waitForFunction(
    (sel: string, want: string | null) =>
      ((globalThis as unknown as G).document.querySelector(sel)?.textContent ?? null) === want,
    {},
    selector,
    text,
  )

/**
 * Types into the history's filter box and waits until the page has drawn the last keystroke.
 * The history redraws once per animation frame, so a count read earlier may be an earlier
 * keystroke's ("toolu_l" can match as many events as "toolu_load") and its rows are replaced,
 * detached, a frame later: CI under load clicked such a row.
 */
export const typeHistoryFilter = async (page: Page, text: string): Promise<void> => {
  await page.type('#h-text', text)
  await page.evaluate(
    () =>
      new Promise<void>((done) => {
        const raf = (globalThis as unknown as G).requestAnimationFrame
        raf(() => raf(() => done()))
      }),
  )
}

// Rows are drawn lazily and redrawn when the detail opens: a row found just before a redraw
// is detached by the time it is clicked, so find it again (a machine under load shows this).
export const clickCall = async (page: Page, id: string): Promise<void> => {
  const selector = `.row.call[data-call="${id}"] .label`
  for (let attempt = 0; ; attempt++) {
    try {
      await page.click(selector)
      return
    } catch (error) {
      if (attempt >= 4 || !/detached/i.test(String(error))) throw error
      await page.waitForSelector(selector)
    }
  }
}
