/**
 * The timeline as one self-contained HTML page: the timeline model embedded as JSON, drawn by an
 * inline script (one shared time axis, bars split into segments, detail on click, filters,
 * summary). Pure: events in, a string out.
 *
 * Safe against any text in the log, three times over: the JSON sits in a
 * `<script type="application/json">` with `<`, `>`, `&`, U+2028 and U+2029 escaped, so no log
 * text can close the element; the script puts log text into the page only through `textContent`
 * and DOM properties; and a Content-Security-Policy allows exactly this page's script and style
 * (by hash) and no network at all, so even markup that got in could neither run nor load.
 */
import type { KernelEvent } from '../events/event.schema.js'
import { projectEventHistory } from './timeline-history.projection.js'
import { projectTimelineModel } from './timeline-model.projection.js'
import { TIMELINE_SCRIPT } from './timeline-page-script.js'
import { TIMELINE_STYLE } from './timeline-page-style.js'
import { sha256Base64 } from './timeline-sha256.js'

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * JSON text that is safe inside a `<script>` element: the characters that could end the element,
 * open a comment, or end a line in older JavaScript parsers become `\uXXXX` escapes, which JSON
 * reads back as the same characters. Outside strings JSON has none of them, so this is exact.
 */
export function jsonForScript(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

let policy: string | undefined
/** The page's Content-Security-Policy: its own script and style by hash, nothing from the network. */
export function timelinePolicy(): string {
  policy ??= [
    "default-src 'none'",
    `script-src 'sha256-${sha256Base64(TIMELINE_SCRIPT)}'`,
    `style-src 'sha256-${sha256Base64(TIMELINE_STYLE)}'`,
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ')
  return policy
}

/**
 * The HTML page of a log's timeline.
 *
 * @example
 * writeFileSync('timeline.html', timelineHtml(readJsonlFile('session.jsonl'), 'my session'))
 */
export function timelineHtml(events: readonly KernelEvent[], title = 'toolkernel timeline'): string {
  const data = jsonForScript({ title, model: projectTimelineModel(events) })
  // The event history has its own element: the page parses it only when the history is opened.
  const history = jsonForScript(projectEventHistory(events))
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${timelinePolicy()}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${TIMELINE_STYLE}</style>
</head><body>
<header><h1 id="title"></h1><p id="subtitle"></p></header>
<div id="summary"></div>
<nav id="tabs" role="tablist"><button type="button" role="tab" id="tab-timeline" aria-selected="true">Timeline</button>
<button type="button" role="tab" id="tab-history" aria-selected="false">Event history</button>
<span id="notice" role="status" hidden><span id="notice-text"></span>
<button type="button" id="notice-close" title="dismiss">×</button></span></nav>
<div id="toolbar">
<label>Tool <select id="f-tool"></select></label>
<label>Outcome <select id="f-outcome"></select></label>
<label>Turn <select id="f-turn"></select></label>
<label>Error class <select id="f-class"></select></label>
<input id="f-text" type="search" placeholder="filter by id or tool" aria-label="filter by id or tool">
<span id="shown"></span>
<span class="zoom">
<button type="button" id="z-out" title="zoom out (-)">−</button>
<button type="button" id="z-in" title="zoom in (+)">+</button>
<button type="button" id="z-fit" title="the whole session (0)">fit</button>
<button type="button" id="p-left" title="pan left (←)">◀</button>
<button type="button" id="p-right" title="pan right (→)">▶</button>
</span>
</div>
<div id="legend"></div>
<div id="main"><div id="chart"><div id="axis" title="wheel here to zoom"></div>
<div id="frame"><div id="grid"></div><div id="rows"><div id="spacer"></div><div id="visible"></div></div></div></div>
<aside id="detail" aria-live="polite"></aside></div>
<section id="history" hidden><div id="h-toolbar">
<label>Type <select id="h-type"></select></label>
<input id="h-text" type="search" placeholder="filter by seq, id, type or any text in the event" aria-label="filter events">
<span id="h-shown"></span></div>
<div id="h-scroll"><table id="h-table"><thead><tr><th>seq</th><th>time</th><th>type</th><th>turn · call</th>
<th>what happened</th></tr></thead><tbody id="h-rows"></tbody></table></div></section>
<script type="application/json" id="timeline-data">${data}</script>
<script type="application/json" id="timeline-events">${history}</script>
<script>${TIMELINE_SCRIPT}</script>
</body></html>
`
}
