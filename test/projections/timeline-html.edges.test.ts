/**
 * timelineHtml's edges, read from the HTML text alone (no browser): the exact policy, the title
 * escaped in <title> and whole in the data, and the default title.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { timelineHtml, timelinePolicy } from '../../src/projections/timeline-html.projection.js'
import { TIMELINE_SCRIPT } from '../../src/projections/timeline-page-script.js'
import { TIMELINE_STYLE } from '../../src/projections/timeline-page-style.js'

const hash = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64')
/** The title the page's data element carries (what the script writes into the heading). */
const dataTitle = (html: string): unknown => {
  const json = /<script type="application\/json" id="timeline-data">([^<]*)<\/script>/.exec(html)?.[1]
  return (JSON.parse(json ?? 'null') as { title: unknown } | null)?.title
}

describe('timelinePolicy', () => {
  // Every directive matters: a missing one falls back to allowing more than the page needs, or, for the
  // hashes, blocks the page's own script and style.
  it('is exactly: nothing by default, the page script and style by hash, no images, base or form targets', () => {
    expect(timelinePolicy()).toBe(
      [
        "default-src 'none'",
        `script-src 'sha256-${hash(TIMELINE_SCRIPT)}'`,
        `style-src 'sha256-${hash(TIMELINE_STYLE)}'`,
        "img-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
      ].join('; '),
    )
  })
})

describe('timelineHtml title', () => {
  // The title is the only log-chosen text written into markup directly: every character HTML reads
  // specially is a numeric reference; the data keeps it whole.
  it.each([
    ['<b>"Tom" & \'Jerry\'</b>', '&#60;b&#62;&#34;Tom&#34; &#38; &#39;Jerry&#39;&#60;/b&#62;'],
    ['plain session', 'plain session'],
  ])('%j', (title, escaped) => {
    const html = timelineHtml([], title)
    expect(html).toContain(`<title>${escaped}</title>`)
    expect(dataTitle(html)).toBe(title)
  })

  it('defaults to "toolkernel timeline"', () => {
    const html = timelineHtml([])
    expect(html).toContain('<title>toolkernel timeline</title>')
    expect(dataTitle(html)).toBe('toolkernel timeline')
  })
})
