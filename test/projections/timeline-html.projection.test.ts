/**
 * timelineHtml alone: one call per tool_use with its batch and outcome, turns in order, and
 * nothing from the log reaches the page as markup — the data is JSON that cannot close its
 * element, and the policy allows only the page's own script and style.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { projectEventHistory } from '../../src/projections/timeline-history.projection.js'
import { jsonForScript, timelineHtml, timelinePolicy } from '../../src/projections/timeline-html.projection.js'
import type { TimelineModel } from '../../src/projections/timeline-model.projection.js'
import { TIMELINE_SCRIPT } from '../../src/projections/timeline-page-script.js'
import { TIMELINE_STYLE } from '../../src/projections/timeline-page-style.js'
import { requested, result, stamp } from './events.js'

const HOSTILE = '</script><script>alert("x")</script>&\'<img src=x onerror=alert(1)>\u2028\u2029<!--'

/** The embedded data, read back as the page's script reads it. */
function data(html: string): { title: string; model: TimelineModel } {
  const match = /<script type="application\/json" id="timeline-data">([^<]*)<\/script>/.exec(html)
  if (match?.[1] === undefined) throw new Error('no data element')
  return JSON.parse(match[1]) as { title: string; model: TimelineModel }
}

describe('timelineHtml', () => {
  it('embeds tool names, ids, turn ids and the title as JSON that no log text can break out of', () => {
    const events = stamp(
      { type: 'turn.started', turnId: HOSTILE, mode: 'batch', maxConcurrency: 1 },
      requested(HOSTILE, HOSTILE, 0, HOSTILE, { [HOSTILE]: HOSTILE }),
      result(HOSTILE, HOSTILE, HOSTILE),
    )
    const html = timelineHtml(events, HOSTILE)
    // Exactly the page's own three script elements (model, event history, code), and no markup from the log anywhere.
    expect(html.match(/<script/g)).toHaveLength(3)
    expect(html.match(/<\/script>/g)).toHaveLength(3)
    expect(html).not.toContain('<img')
    expect(html).not.toContain('<!--')
    const raw = /id="timeline-data">([^]*?)<\/script>/.exec(html)?.[1] ?? ''
    expect(raw).not.toMatch(/[<>&\u2028\u2029]/)
    expect(raw).toContain('\\u003c/script\\u003e')
    const history = /id="timeline-events">([^]*?)<\/script>/.exec(html)?.[1] ?? ''
    expect(history).not.toMatch(/[<>&\u2028\u2029]/)
    expect(JSON.parse(history)).toEqual(projectEventHistory(events))
    expect(html).toContain(`<title>&#60;/script&#62;&#60;script&#62;alert(&#34;x&#34;)`)
    const { title, model } = data(html)
    expect(title).toBe(HOSTILE)
    expect(model.turns.map((t) => t.id)).toEqual([HOSTILE])
    expect(model.calls.map((c) => [c.id, c.tool, c.input, c.result])).toEqual([
      [HOSTILE, HOSTILE, { [HOSTILE]: HOSTILE }, HOSTILE],
    ])
  })

  it('one call per tool_use in the order they were asked for, with its batch (none if never started) and outcome', () => {
    const T = 'T'
    const html = timelineHtml(
      stamp(
        [{ type: 'turn.started', turnId: T, mode: 'batch', maxConcurrency: 2 }, 0],
        [requested(T, 'late', 0, 'Write'), 0],
        [requested(T, 'first', 1, 'Read'), 0],
        [requested(T, 'never', 2, 'Bash'), 0],
        [requested(T, 'open', 3, 'Read'), 0],
        [{ type: 'tool.dispatched', turnId: T, toolUseId: 'late', batch: 1, running: 1 }, 50],
        [{ type: 'tool.dispatched', turnId: T, toolUseId: 'first', batch: 0, running: 1 }, 10],
        [{ type: 'tool.dispatched', turnId: T, toolUseId: 'open', batch: 0, running: 2 }, 10],
        [result(T, 'first', 'ok'), 40],
        [result(T, 'late', 'bad', 'error'), 100],
        [result(T, 'never', 'cancelled', 'cancelled'), 100],
      ),
    )
    const { model } = data(html)
    expect(model.calls.map((c) => [c.id, c.batch, c.outcome])).toEqual([
      ['late', 1, 'error'],
      ['first', 0, 'success'],
      ['never', null, 'cancelled'],
      ['open', 0, 'open'],
    ])
    expect(model.turns.map((t) => [t.id, t.end - t.start])).toEqual([['T', 100]])
    // `late` waited in the queue until its dispatch at 50 ms, then ran until its result at 100 ms.
    const late = model.calls[0]!
    expect([late.start, late.end]).toEqual([0, 100])
    expect(late.segments[0]).toMatchObject({ kind: 'queued', start: 0, end: 50 })
    expect(model.calls[2]?.segments).toEqual([{ kind: 'queued', start: 0, end: 100, doing: 'waiting in the queue' }])
  })

  it('each turn in order on the one axis, and a page with no events is still a whole page', () => {
    const { model } = data(timelineHtml(stamp(requested('A', 'a', 0), requested('B', 'b', 0))))
    expect(model.turns.map((t) => [t.id, t.start])).toEqual([
      ['A', 0],
      ['B', 1],
    ])
    const empty = timelineHtml([])
    expect(empty).toMatch(/^<!doctype html>/)
    expect(empty).toContain('</html>')
    expect(data(empty).model.calls).toEqual([])
  })

  it('its policy allows the page script and style by their hashes and nothing from the network', () => {
    const html = timelineHtml([])
    const script = /<script>([^]*)<\/script>/.exec(html)?.[1]
    const style = /<style>([^]*)<\/style>/.exec(html)?.[1]
    const hash = (text: string | undefined) =>
      createHash('sha256')
        .update(text ?? '', 'utf8')
        .digest('base64')
    expect(script).toBe(TIMELINE_SCRIPT)
    expect(style).toBe(TIMELINE_STYLE)
    const policy = timelinePolicy()
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${policy}">`)
    expect(policy).toContain(`script-src 'sha256-${hash(script)}'`)
    expect(policy).toContain(`style-src 'sha256-${hash(style)}'`)
    expect(policy).toMatch(/^default-src 'none'; /)
    // The script itself can never end its element early, nor does it write markup.
    expect(TIMELINE_SCRIPT).not.toMatch(/<\/|<!--|innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/)
  })
})

describe('jsonForScript', () => {
  it('escapes <, >, &, U+2028 and U+2029, and reads back as the same value', () => {
    const value = { [HOSTILE]: [HOSTILE, 1, null, true], nested: { s: '\u2028x\u2029 & <b>' } }
    const json = jsonForScript(value)
    expect(json).not.toMatch(/[<>&\u2028\u2029]/)
    expect(json).toContain('\\u003c/script\\u003e')
    expect(json).toContain('\\u0026')
    expect(json).toContain('\\u2028')
    expect(JSON.parse(json)).toEqual(value)
    expect(jsonForScript(undefined)).toBe('null')
  })
})
