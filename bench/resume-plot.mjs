/**
 * The resume-time plot of bench/resume.mjs (issue 33): hand-written SVG, no dependency.
 * `node bench/resume-plot.mjs rows.json out.svg` draws rows a run kept with `--json`.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** Resume time against log length, both axes logarithmic, one line per variant. */
export function plot(data) {
  const W = 640
  const H = 400
  const m = { l: 70, r: 20, t: 30, b: 50 }
  const xs = data.map((r) => Math.log10(r.events))
  const ys = data.map((r) => Math.log10(Math.max(r.ms, 0.1)))
  // A size a hair over a power of ten (1,000,038 events) does not open the next decade.
  const [x0, x1] = [Math.floor(Math.min(...xs) + 0.05), Math.ceil(Math.max(...xs) - 0.05)]
  const [y0, y1] = [Math.floor(Math.min(...ys)), Math.ceil(Math.max(...ys))]
  const X = (v) => m.l + ((v - x0) / Math.max(1, x1 - x0)) * (W - m.l - m.r)
  const Y = (v) => H - m.b - ((v - y0) / Math.max(1, y1 - y0)) * (H - m.t - m.b)
  const colours = ['#c0392b', '#e67e22', '#2c3e50', '#2980b9']
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="18" text-anchor="middle" font-size="14">Resume time against log length (issue 33)</text>`,
  ]
  for (let e = x0; e <= x1; e++)
    parts.push(
      `<line x1="${X(e)}" y1="${m.t}" x2="${X(e)}" y2="${H - m.b}" stroke="#ddd"/>`,
      `<text x="${X(e)}" y="${H - m.b + 18}" text-anchor="middle">10^${e}</text>`,
    )
  for (let e = y0; e <= y1; e++)
    parts.push(
      `<line x1="${m.l}" y1="${Y(e)}" x2="${W - m.r}" y2="${Y(e)}" stroke="#ddd"/>`,
      `<text x="${m.l - 8}" y="${Y(e) + 4}" text-anchor="end">${10 ** e >= 1 ? 10 ** e : (10 ** e).toFixed(1)} ms</text>`,
    )
  parts.push(`<text x="${W / 2}" y="${H - 12}" text-anchor="middle">events in the session's log</text>`)
  ;[...new Set(data.map((r) => r.variant))].forEach((variant, i) => {
    const points = data
      .filter((r) => r.variant === variant)
      .map((r) => `${X(Math.log10(r.events)).toFixed(1)},${Y(Math.log10(Math.max(r.ms, 0.1))).toFixed(1)}`)
    const colour = colours[i % colours.length]
    const dash = variant.includes('whole') ? '' : ' stroke-dasharray="6 4"'
    parts.push(`<polyline points="${points.join(' ')}" fill="none" stroke="${colour}" stroke-width="2"${dash}/>`)
    for (const p of points)
      parts.push(`<circle cx="${p.split(',')[0]}" cy="${p.split(',')[1]}" r="3" fill="${colour}"/>`)
    parts.push(
      `<line x1="${m.l + 10}" y1="${m.t + 10 + i * 16}" x2="${m.l + 34}" y2="${m.t + 10 + i * 16}" stroke="${colour}" stroke-width="2"${dash}/>`,
      `<text x="${m.l + 40}" y="${m.t + 14 + i * 16}">${variant}</text>`,
    )
  })
  parts.push('</svg>', '')
  return parts.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [rowsFile, out] = process.argv.slice(2)
  writeFileSync(out, plot(JSON.parse(readFileSync(rowsFile, 'utf8'))))
}
