/**
 * A fetched body as text the model can read: HTML through Readability (the article, without
 * navigation and footers) over a linkedom DOM, then Turndown to Markdown; text and JSON as they
 * are; anything else refused by its content type (docs/decisions/tools.md #130). The three
 * libraries are imported on the first page, never with the kernel (docs/decisions/performance.md #66).
 */

import type * as ReadabilityModule from '@mozilla/readability'
import type * as Linkedom from 'linkedom'
import type TurndownService from 'turndown'

export type PageFormat = 'markdown' | 'text' | 'html'

export interface PageText {
  /** What the body was read as. */
  readonly kind: 'html' | 'text'
  readonly title?: string
  readonly text: string
}

/** A media type (`text/html`) and its charset, from a Content-Type header. */
export function mediaType(header: string | undefined): { type: string | undefined; charset: string | undefined } {
  if (header === undefined || header.trim() === '') return { type: undefined, charset: undefined }
  const [type = '', ...params] = header.split(';')
  const charset = params.map((p) => /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(p)?.[1]).find((c) => c !== undefined)
  return { type: type.trim().toLowerCase(), charset }
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml'])
const TEXT_APPLICATION_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/x-ndjson',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-sh',
  'application/sql',
  'application/graphql',
])

/** How a body of this media type is read, or 'binary' (undefined: no type given, so sniffed). */
export function bodyKind(type: string | undefined, body: Uint8Array): 'html' | 'text' | 'binary' {
  if (type === undefined) return sniff(body)
  if (HTML_TYPES.has(type)) return 'html'
  if (type.startsWith('text/') || TEXT_APPLICATION_TYPES.has(type)) return 'text'
  if (/^[\w.-]+\/[\w.-]+\+(json|xml)$/.test(type)) return 'text'
  return 'binary'
}

/** No type: text when the start has no NUL byte and is UTF-8; HTML when it starts like HTML. */
function sniff(body: Uint8Array): 'html' | 'text' | 'binary' {
  const head = body.subarray(0, 4096)
  if (head.includes(0)) return 'binary'
  let text: string
  try {
    // The last few bytes may be a character cut in two by the window.
    text = new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 3)))
  } catch {
    return 'binary'
  }
  return /^\s*<(!doctype html|html|head|body)\b/i.test(text) ? 'html' : 'text'
}

/** The body as a string in its charset (UTF-8 when none is given or the label is unknown). */
export function decodeBody(body: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body)
  } catch {
    return new TextDecoder('utf-8').decode(body)
  }
}

type Libraries = {
  parseHTML: typeof Linkedom.parseHTML
  Readability: typeof ReadabilityModule.Readability
  Turndown: typeof TurndownService
}
let libraries: Promise<Libraries> | undefined

function loadLibraries(): Promise<Libraries> {
  libraries ??= Promise.all([import('linkedom'), import('@mozilla/readability'), import('turndown')]).then(
    ([linkedom, readability, turndown]) => ({
      parseHTML: linkedom.parseHTML,
      Readability: readability.Readability,
      Turndown: turndown.default,
    }),
  )
  return libraries
}

/** An HTML page as Markdown, plain text, or the HTML itself, with its title. */
export async function htmlText(html: string, url: string, format: PageFormat): Promise<PageText> {
  if (format === 'html') return { kind: 'html', text: html }
  const { parseHTML, Readability, Turndown } = await loadLibraries()
  const { document } = parseHTML(html)
  anchorLinks(document, url)
  const pageTitle = document.title.trim()
  // Readability finds the article and makes its links absolute (it changes the document it reads).
  const article = new Readability(document as unknown as ConstructorParameters<Libraries['Readability']>[0]).parse()
  const title = article?.title?.trim() || pageTitle
  const titled = (text: string): PageText => (title === '' ? { kind: 'html', text } : { kind: 'html', title, text })
  // A page Readability cannot read is taken whole, parsed afresh, without what never shows.
  const whole = (): ReturnType<Libraries['parseHTML']>['document'] => {
    const page = parseHTML(html).document
    anchorLinks(page, url)
    for (const hidden of page.querySelectorAll(HIDDEN.join(','))) hidden.remove()
    return page
  }
  if (format === 'text') return titled(tidyText(article?.textContent ?? whole().body?.textContent ?? ''))
  const turndown = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' })
  turndown.remove([...HIDDEN])
  const markdown = article?.content != null ? turndown.turndown(article.content) : turndown.turndown(whole().body)
  return titled(markdown.trim())
}

const HIDDEN = ['script', 'style', 'noscript', 'template', 'iframe'] as const

/** A `<base>` for the page's own URL (or its own base, made absolute), so relative links resolve. */
function anchorLinks(document: ReturnType<Libraries['parseHTML']>['document'], url: string): void {
  const existing = document.querySelector('base[href]')
  if (existing !== null) {
    try {
      existing.setAttribute('href', new URL(existing.getAttribute('href') ?? '', url).href)
    } catch {
      existing.setAttribute('href', url)
    }
    return
  }
  const base = document.createElement('base')
  base.setAttribute('href', url)
  document.head?.prepend(base)
}

/** Runs of spaces as one, at most one blank line in a row, no trailing spaces. */
function tidyText(text: string): string {
  return text
    .replace(/[ \t\f\v\r]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}
