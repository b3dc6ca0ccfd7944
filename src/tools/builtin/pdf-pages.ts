/**
 * The text of a PDF's pages, for Read. The PDF library (`unpdf`, an optional peer dependency, the
 * serverless build of PDF.js) is imported on first use, and only then: without it, reading a PDF
 * is an error that says how to install it (docs/decisions/tools.md, 152).
 */

/** At most this many pages per Read, as Claude Code; more are asked for with `pages`. */
export const PDF_MAX_PAGES = 20
/** PDFs past this size are refused before they are loaded. */
export const PDF_MAX_BYTES = 32 * 1024 * 1024

/** What toolkernel uses of the PDF library: `unpdf`'s `getDocumentProxy` (a PDF.js document). */
export interface PdfLibrary {
  getDocumentProxy(data: Uint8Array, options?: { verbosity?: number }): Promise<PdfDocument>
}

/** The part of a PDF.js document Read uses. */
export interface PdfDocument {
  readonly numPages: number
  getPage(page: number): Promise<{ getTextContent(): Promise<{ items: readonly unknown[] }> }>
  cleanup?(): unknown
}

/** Imports the PDF library; an app or a test may give its own (Read's `loadPdfLibrary` option). */
export type PdfLibraryLoader = () => Promise<PdfLibrary>

export const importUnpdf: PdfLibraryLoader = async () => (await import('unpdf')) as unknown as PdfLibrary

/** A range of pages, both ends included, numbered from 1. */
export interface PageRange {
  first: number
  last: number
}

/**
 * `pages` as written ("3", "1-5", "2,4-6") as ranges, or the reason it does not parse. Page
 * numbers past the document's end are checked once its length is known (selectPages).
 */
export function parsePages(spec: string): PageRange[] | string {
  const ranges: PageRange[] = []
  for (const part of spec.split(',')) {
    const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part)
    if (match === null)
      return `pages ${JSON.stringify(spec)} does not parse: give a page ("3"), a range ("1-5") or both, comma-separated ("1-3,7")`
    const first = Number(match[1])
    const last = match[2] === undefined ? first : Number(match[2])
    if (first < 1) return `pages ${JSON.stringify(spec)}: pages are numbered from 1`
    if (last < first) return `pages ${JSON.stringify(spec)}: the range ${first}-${last} runs backwards`
    ranges.push({ first, last })
  }
  const count = ranges.reduce((n, r) => n + r.last - r.first + 1, 0)
  if (count > PDF_MAX_PAGES)
    return `pages ${JSON.stringify(spec)} asks for ${count} pages; Read returns at most ${PDF_MAX_PAGES} pages per call, so ask for fewer and continue in another call`
  return ranges
}

/** The page numbers to read, in order and once each; a throw for a page the document lacks. */
function selectPages(ranges: readonly PageRange[] | undefined, total: number, path: string): number[] {
  if (ranges === undefined) return Array.from({ length: Math.min(total, PDF_MAX_PAGES) }, (_, i) => i + 1)
  const pages = new Set<number>()
  for (const { first, last } of ranges) {
    if (last > total)
      throw new Error(
        `${path} has ${total} ${total === 1 ? 'page' : 'pages'}, so page ${last} does not exist; ask for pages 1-${total} or fewer`,
      )
    for (let page = first; page <= last; page++) pages.add(page)
  }
  return [...pages].sort((a, b) => a - b)
}

/**
 * The text of the chosen pages (the first PDF_MAX_PAGES without `ranges`), each under a
 * `--- page N ---` line, stopping at `maxChars` with a note that says how to go on.
 */
export async function pdfText(
  bytes: Uint8Array,
  path: string,
  ranges: readonly PageRange[] | undefined,
  load: PdfLibraryLoader,
  maxChars: number,
): Promise<string> {
  const library = await loadLibrary(load)
  let document: PdfDocument
  try {
    // A plain copy: PDF.js refuses a Buffer, and may take the array it is given.
    // verbosity 0: errors only; PDF.js's warnings would go to the app's console.
    document = await library.getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 })
  } catch (error) {
    throw new Error(`${path} could not be read as a PDF (${(error as Error).message})`)
  }
  try {
    const total = document.numPages
    const pages = selectPages(ranges, total, path)
    const parts = [`PDF ${path}: ${total} ${total === 1 ? 'page' : 'pages'}; ${pageList(pages)} shown below.`]
    let length = parts[0]?.length ?? 0
    for (const [i, page] of pages.entries()) {
      const body = `--- page ${page} ---\n${await pageText(document, page)}`
      if (length + body.length + 2 > maxChars) {
        if (i === 0) parts.push(`${body.slice(0, maxChars - length)}… [page cut: ${body.length} characters]`)
        const rest = pages.slice(i === 0 ? 1 : i)
        if (rest.length > 0)
          parts.push(
            `… ${pageList(rest)} not shown: more text than Read returns at once (${maxChars} characters); read them with pages in another call`,
          )
        return parts.join('\n\n')
      }
      parts.push(body)
      length += body.length + 2
    }
    const last = pages.at(-1) ?? 0
    if (ranges === undefined && last < total)
      parts.push(
        `… ${total - last} more pages (${total} in all); continue with pages "${last + 1}-${Math.min(total, last + PDF_MAX_PAGES)}"`,
      )
    return parts.join('\n\n')
  } finally {
    await document.cleanup?.()
  }
}

async function loadLibrary(load: PdfLibraryLoader): Promise<PdfLibrary> {
  try {
    return await load()
  } catch (error) {
    throw new Error(
      `reading PDF files needs the optional package unpdf, which could not be loaded (${(error as Error).message.split('\n')[0]}); install it with: npm install unpdf`,
    )
  }
}

/** A page's text: PDF.js's items in order, a newline where the item ends a line. */
async function pageText(document: PdfDocument, page: number): Promise<string> {
  const content = await (await document.getPage(page)).getTextContent()
  let text = ''
  for (const item of content.items) {
    if (typeof item !== 'object' || item === null || !('str' in item) || typeof item.str !== 'string') continue
    text += item.str + ('hasEOL' in item && item.hasEOL === true ? '\n' : '')
  }
  return text.trimEnd() || '(no text on this page: it may be a scanned image)'
}

/** "page 3", "pages 1-5", "pages 1-2, 7". */
function pageList(pages: readonly number[]): string {
  if (pages.length === 0) return 'no pages'
  const spans: string[] = []
  for (let i = 0; i < pages.length;) {
    let j = i
    while (j + 1 < pages.length && pages[j + 1] === (pages[j] as number) + 1) j++
    spans.push(i === j ? `${pages[i]}` : `${pages[i]}-${pages[j]}`)
    i = j + 1
  }
  return `${pages.length === 1 ? 'page' : 'pages'} ${spans.join(', ')}`
}
