/**
 * A real PDF, written by hand: one page per text, each drawing its text in Helvetica, with a
 * correct cross-reference table. A few hundred bytes; PDF.js reads it as any PDF.
 */
export function makePdf(pages: readonly string[]): Buffer {
  const objects: string[] = []
  const font = 3 + pages.length * 2
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>'
  const kids = pages.map((_, i) => `${3 + i * 2} 0 R`).join(' ')
  objects[2] = `<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`
  pages.forEach((text, i) => {
    const escaped = text.replace(/[()\\]/g, (c) => `\\${c}`)
    const stream = `BT /F1 12 Tf 72 720 Td (${escaped}) Tj ET`
    objects[3 + i * 2] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${4 + i * 2} 0 R >>`
    objects[4 + i * 2] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`
  })
  objects[font] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'
  let out = '%PDF-1.4\n'
  const offsets: number[] = []
  for (let id = 1; id < objects.length; id++) {
    offsets.push(out.length)
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`
  }
  const xref = out.length
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`
  out += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(out, 'latin1')
}
