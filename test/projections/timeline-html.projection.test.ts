/** timelineHtml alone: bars per call grouped by batch, and nothing from the log reaches the page unescaped. */
import { describe, expect, it } from 'vitest'
import { timelineHtml } from '../../src/projections/timeline-html.projection.js'
import { requested, result, stamp } from './events.js'

const HOSTILE = '</script><script>alert("x")</script>&\'<img src=x onerror=alert(1)>'

describe('timelineHtml', () => {
  it('escapes tool names, ids, turn ids and the title: no markup from the log survives', () => {
    const html = timelineHtml(
      stamp(
        { type: 'turn.started', turnId: HOSTILE, mode: 'batch', maxConcurrency: 1 },
        requested(HOSTILE, HOSTILE, 0, HOSTILE),
        result(HOSTILE, HOSTILE, 'x'),
      ),
      HOSTILE,
    )
    expect(html).not.toContain('</script>')
    expect(html).not.toContain('<script')
    expect(html).not.toContain('<img')
    expect(html).not.toContain('"x"')
    expect(html).toContain('&#60;/script&#62;&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#38;&#39;&#60;img')
    expect(html).toContain(`<title>&#60;/script&#62;`)
  })

  it('one bar per call, grouped by batch in order; a call never dispatched sits apart; outcomes are classes', () => {
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
    const batches = [...html.matchAll(/data-batch="(-?\d+)"/g)].map((m) => m[1])
    expect(batches).toEqual(['-1', '0', '1'])
    const calls = [...html.matchAll(/data-call="([^"]+)" data-outcome="([^"]+)"/g)].map((m) => `${m[1]}:${m[2]}`)
    expect(calls).toEqual(['never:cancelled', 'first:success', 'open:open', 'late:error'])
    expect(html).toContain('never started')
    expect(html).toContain('Turn T — 100 ms')
    // The bar of `late` runs from its dispatch (50 %) to its result (100 %).
    expect(html).toMatch(/data-call="late"[^]*?class="bar error" style="left:50\.00%;width:50\.00%"/)
    expect(html).toMatch(/data-call="first"[^]*?class="bar success" style="left:10\.00%;width:30\.00%"/)
  })

  it('each turn gets its own section, and a page with no events is still a whole page', () => {
    const html = timelineHtml(stamp(requested('A', 'a', 0), requested('B', 'b', 0)))
    expect([...html.matchAll(/data-turn="([^"]+)"/g)].map((m) => m[1])).toEqual(['A', 'B'])
    const empty = timelineHtml([])
    expect(empty).toMatch(/^<!doctype html>/)
    expect(empty).toContain('</html>')
    expect(empty).not.toContain('data-turn')
  })
})
