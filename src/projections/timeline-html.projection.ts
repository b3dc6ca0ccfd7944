/**
 * A self-contained HTML page drawing each call as a bar over time, grouped by turn and batch,
 * with its steps as ticks and its outcome as a colour. Pure: events in, a string out.
 */
import type { KernelEvent } from '../events/event.schema.js'

interface Bar {
  id: string
  tool: string
  batch: number
  start: number
  end: number
  outcome: string
  steps: Array<{ at: number; label: string }>
}

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export function timelineHtml(events: readonly KernelEvent[], title = 'toolkernel timeline'): string {
  const turns = new Map<string, { start: number; end: number; bars: Map<string, Bar> }>()
  for (const event of events) {
    let turn = turns.get(event.turnId)
    if (turn === undefined) turns.set(event.turnId, (turn = { start: event.at, end: event.at, bars: new Map() }))
    turn.end = Math.max(turn.end, event.at)
    if (!('toolUseId' in event)) continue
    if (event.type === 'tool.requested')
      turn.bars.set(event.toolUseId, {
        id: event.toolUseId,
        tool: event.name,
        batch: -1,
        start: event.at,
        end: event.at,
        outcome: 'open',
        steps: [],
      })
    const bar = turn.bars.get(event.toolUseId)
    if (bar === undefined) continue
    if (event.type === 'tool.dispatched') {
      bar.batch = event.batch
      bar.start = event.at
    }
    if (event.type === 'tool.result') bar.outcome = event.outcome
    bar.end = Math.max(bar.end, event.at)
    bar.steps.push({ at: event.at, label: event.type })
  }
  const sections = [...turns].map(([turnId, turn]) => section(turnId, turn))
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#222}
h1{font-size:18px}h2{font-size:15px;margin:24px 0 8px}
.batch{border-left:3px solid #bbb;margin:6px 0;padding-left:8px}
.batch>.label{font-size:12px;color:#666}
.row{position:relative;height:26px;margin:3px 0}
.name{position:absolute;left:0;width:220px;font-size:12px;line-height:26px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.lane{position:absolute;left:230px;right:0;top:0;bottom:0;background:#f6f6f6}
.bar{position:absolute;top:4px;bottom:4px;border-radius:3px;min-width:3px}
.success{background:#4caf50}.error{background:#e53935}.cancelled{background:#fb8c00}.open{background:#9e9e9e}
.tick{position:absolute;top:0;bottom:0;width:1px;background:rgba(0,0,0,.45)}
.legend span{display:inline-block;padding:2px 8px;margin-right:6px;color:#fff;border-radius:3px}
</style></head><body>
<h1>${escape(title)}</h1>
<p class="legend"><span class="success">success</span><span class="error">error</span><span class="cancelled">cancelled</span><span class="open">no result</span></p>
${sections.join('\n')}
</body></html>
`
}

function section(turnId: string, turn: { start: number; end: number; bars: Map<string, Bar> }): string {
  const span = Math.max(1, turn.end - turn.start)
  const pct = (t: number) => (((t - turn.start) / span) * 100).toFixed(2)
  const batches = new Map<number, Bar[]>()
  for (const bar of turn.bars.values()) batches.set(bar.batch, [...(batches.get(bar.batch) ?? []), bar])
  const groups = [...batches]
    .sort(([a], [b]) => a - b)
    .map(([batch, bars]) => {
      const rows = bars.map((bar) => {
        const ticks = bar.steps
          .map(
            (s) =>
              `<div class="tick" style="left:${pct(s.at)}%" title="${escape(`${s.label} +${s.at - turn.start} ms`)}"></div>`,
          )
          .join('')
        const width = Math.max(0.3, Number(pct(bar.end)) - Number(pct(bar.start)))
        return `<div class="row" data-call="${escape(bar.id)}" data-outcome="${escape(bar.outcome)}"><div class="name" title="${escape(bar.id)}">${escape(bar.tool)} · ${escape(bar.id)}</div><div class="lane"><div class="bar ${escape(bar.outcome)}" style="left:${pct(bar.start)}%;width:${width.toFixed(2)}%" title="${escape(`${bar.outcome}, ${bar.end - bar.start} ms`)}"></div>${ticks}</div></div>`
      })
      return `<div class="batch" data-batch="${batch}"><div class="label">${batch < 0 ? 'never started' : `batch ${batch}`}</div>${rows.join('')}</div>`
    })
  return `<h2 data-turn="${escape(turnId)}">Turn ${escape(turnId)} — ${turn.end - turn.start} ms</h2>\n${groups.join('\n')}`
}
