import { z } from 'zod'
import type { WebClient, WebResponse } from '../../ports/index.js'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import type { Tool, ToolContext } from '../tool.types.js'
import { checkOptionsObject } from '../../util/known-options.js'
import { bodyKind, decodeBody, htmlText, mediaType, type PageFormat, type PageText } from './web-page-text.js'

/** What `createWebFetch` takes; every bound has a default (docs/decisions/tools.md #130). */
export interface WebFetchOptions {
  /**
   * Fetch from loopback, private, link-local, unique-local, shared (CGNAT), multicast and
   * unspecified addresses too (an intranet app, tests on loopback). Default false: refused.
   */
  allowPrivateAddresses?: boolean
  /** Bytes of (decoded) body read at most; past them reading stops and the result says so. Default 5 MB. */
  maxBytes?: number
  /** Redirects followed at most, each one checked like the first URL. Default 10. */
  maxRedirects?: number
  /** The call's deadline (the kernel's `timeoutMs` for the tool). Default 60 s. */
  timeoutMs?: number
}

/** The bounds `createWebFetch` uses where its options give none, and the default `max_chars`. */
export const WEB_FETCH_DEFAULTS = { maxBytes: 5_000_000, maxRedirects: 10, timeoutMs: 60_000, maxChars: 50_000 }
/** The most characters of page a call may ask for (`max_chars`). */
export const WEB_FETCH_MAX_CHARS = 100_000

export interface WebFetchInput {
  url: string
  format?: PageFormat | undefined
  max_chars?: number | undefined
}

const inputSchema = lazySchema(() =>
  z.strictObject({
    url: z.string().min(1).max(2000).describe('The absolute http:// or https:// URL to fetch'),
    format: z
      .enum(['markdown', 'text', 'html'])
      .optional()
      .describe('How an HTML page comes back: markdown (default, the main article), text (plain), html (as served)'),
    max_chars: z
      .number()
      .int()
      .min(1000)
      .max(WEB_FETCH_MAX_CHARS)
      .optional()
      .describe(`Characters of page text returned at most (default ${WEB_FETCH_DEFAULTS.maxChars})`),
  }),
)

const NAME = 'WebFetch'

/**
 * A WebFetch with its own bounds and address policy.
 *
 * @throws TypeError for a bound that is not a positive integer.
 * @example
 * // an intranet assistant: private addresses allowed, a smaller body bound
 * createKernel({ tools: [createWebFetch({ allowPrivateAddresses: true, maxBytes: 1_000_000 })] })
 */
export function createWebFetch(
  options: WebFetchOptions = {},
): Tool<WebFetchInput, string> & { readonly name: 'WebFetch' } {
  const bounds = checkedOptions(options)
  return buildTool<WebFetchInput, string, unknown, 'WebFetch'>({
    name: NAME,
    searchHint: 'web fetch url http https page download read website documentation',
    category: 'web',
    description: () => 'Fetches a web page and returns its readable text.',
    prompt: () => webFetchPrompt(bounds),
    inputSchema,
    maxResultSizeChars: WEB_FETCH_MAX_CHARS + 2_000,
    timeoutMs: bounds.timeoutMs,
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    isOpenWorld: () => true,
    interruptBehavior: () => 'cancel',
    getHost: (input) => hostOf(input.url),
    // As in Claude Code: each host is asked about until a rule (WebFetch(domain:…)) or a grant
    // allows it (docs/decisions/tools.md #131).
    checkPermissions: (input) => ({ behavior: 'ask', message: `fetch from ${hostOf(input.url) ?? input.url}` }),
    activityDescription: (input) => `Fetching ${input.url}`,
    userFacingName: (input) => (input?.url !== undefined ? `WebFetch (${input.url})` : NAME),
    validateInput: (input) => {
      const problem = urlProblem(input.url)
      return problem === undefined ? { result: true } : { result: false, message: problem }
    },
    call: (input, context) => fetchPage(input, context, bounds),
  })
}

/** WebFetch with the default bounds; private and loopback addresses are refused. */
export const WebFetch = createWebFetch()

type Bounds = Required<WebFetchOptions>

function checkedOptions(options: WebFetchOptions): Bounds {
  checkOptionsObject('createWebFetch', options, ['allowPrivateAddresses', 'maxBytes', 'maxRedirects', 'timeoutMs'])
  const bounds: Bounds = {
    allowPrivateAddresses: options.allowPrivateAddresses === true,
    maxBytes: options.maxBytes ?? WEB_FETCH_DEFAULTS.maxBytes,
    maxRedirects: options.maxRedirects ?? WEB_FETCH_DEFAULTS.maxRedirects,
    timeoutMs: options.timeoutMs ?? WEB_FETCH_DEFAULTS.timeoutMs,
  }
  for (const key of ['maxBytes', 'maxRedirects', 'timeoutMs'] as const) {
    const value = bounds[key]
    const least = key === 'maxRedirects' ? 0 : 1
    if (!Number.isSafeInteger(value) || value < least)
      throw new TypeError(`createWebFetch: ${key} must be an integer of at least ${least}, got ${String(value)}`)
  }
  return bounds
}

function webFetchPrompt(bounds: Bounds): string {
  return [
    'Fetches a URL and returns its content as text: an HTML page as Markdown of its main article (navigation, ads and footers left out; format "text" for plain text, "html" for the page as served), a text or JSON response as it is.',
    'Unlike some WebFetch tools it takes no prompt and runs no model over the page: you get the page text itself, so read what you need from it.',
    'Use it to read documentation, an article or an API response the user points to; it is read-only and fetches with GET only.',
    'The URL must be a complete http:// or https:// URL without a user name or password.',
    `Redirects are followed (at most ${bounds.maxRedirects}); a redirect to another host that needs approval is not followed: the result gives its URL, to fetch in a call of its own if you still need it.`,
    bounds.allowPrivateAddresses
      ? 'Private and loopback addresses are allowed in this app.'
      : 'Hosts on private, loopback or link-local addresses (localhost, 10.x, 192.168.x, 169.254.x …) are refused.',
    `At most ${bounds.maxBytes} bytes of a response are read and ${WEB_FETCH_DEFAULTS.maxChars} characters returned (max_chars, up to ${WEB_FETCH_MAX_CHARS}); the result says when it was cut. Binary content (images, PDFs, archives) is refused, naming its type.`,
    'The result starts with the final URL, its content type and the page title, then the text.',
  ].join(' ')
}

/** The URL's host name as rules see it (`domain:` specifiers), or undefined when it does not parse. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname
  } catch {
    return undefined
  }
}

function urlProblem(text: string): string | undefined {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return `url ${JSON.stringify(text)} is not an absolute URL; give one such as https://example.com/page`
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `url uses ${url.protocol}; WebFetch fetches http:// and https:// URLs only`
  if (url.username !== '' || url.password !== '')
    return 'url carries a user name or password; WebFetch does not send credentials'
  return undefined
}

async function fetchPage(input: WebFetchInput, context: ToolContext, bounds: Bounds): Promise<string> {
  const web = context.ports.web
  if (web === undefined) throw new Error('this kernel has no web client (ports.web), so WebFetch cannot fetch anything')
  const fetched = await followRedirects(web, input.url, context, bounds)
  if (typeof fetched === 'string') return fetched
  const { response, redirects } = fetched
  if (response.status < 200 || response.status >= 300)
    throw new Error(`${response.url} answered HTTP ${response.status}${statusText(response)}`)
  const { type, charset } = mediaType(response.headers['content-type'])
  const kind = bodyKind(type, response.body)
  if (kind === 'binary')
    throw new Error(
      `${response.url} is ${type ?? 'binary content'} (${response.body.length}${response.truncated ? '+' : ''} bytes), which WebFetch does not read: it reads HTML pages, text and JSON`,
    )
  const body = decodeBody(response.body, charset)
  const page: PageText =
    kind === 'html' ? await htmlText(body, response.url, input.format ?? 'markdown') : { kind, text: body }
  return render(page, response, redirects, type, input.max_chars ?? WEB_FETCH_DEFAULTS.maxChars, bounds)
}

const statusText = (response: WebResponse): string => (response.statusText === '' ? '' : ` ${response.statusText}`)

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/**
 * Requests the URL, then each redirect's target, by hand: every hop is checked as the first URL
 * was (scheme, credentials, the address in the client, deny rules here). A hop to another host
 * is followed only where that host needs no asking (an allow rule, bypassPermissions); otherwise
 * the model fetches it in a call of its own, which asks — a string is that answer.
 */
async function followRedirects(
  web: WebClient,
  start: string,
  context: ToolContext,
  bounds: Bounds,
): Promise<{ response: WebResponse; redirects: string[] } | string> {
  const redirects: string[] = []
  let url = start
  for (;;) {
    const response = await web.request(url, {
      signal: context.signal,
      maxBytes: bounds.maxBytes,
      allowPrivateAddresses: bounds.allowPrivateAddresses,
    })
    const location = response.headers.location
    if (!REDIRECTS.has(response.status) || location === undefined) return { response, redirects }
    let target: string
    try {
      target = new URL(location, url).href
    } catch {
      throw new Error(`${url} redirects to ${JSON.stringify(location)}, which is not a URL`)
    }
    if (redirects.length >= bounds.maxRedirects)
      throw new Error(`${start} redirected more than ${bounds.maxRedirects} times (the last hop to ${target})`)
    const problem = urlProblem(target)
    if (problem !== undefined) throw new Error(`${url} redirects to ${target}, which is refused: ${problem}`)
    const rule = context.ruleFor?.(NAME, { url: target })
    if (rule?.behavior === 'deny') throw new Error(`${url} redirects to ${target}, which the rule ${rule.rule} denies`)
    const elsewhere = hostOf(target) !== hostOf(start)
    const unasked = rule?.behavior === 'allow' || context.session?.mode === 'bypassPermissions'
    if (elsewhere && !unasked) {
      const why = rule?.behavior === 'ask' ? `the rule ${rule.rule} asks first` : 'no rule allows it'
      return `${url} redirects to ${target}, on another host that needs approval (${why}); it was not followed. To read it, call WebFetch with url ${JSON.stringify(target)}.`
    }
    redirects.push(url)
    url = target
  }
}

function render(
  page: PageText,
  response: WebResponse,
  redirects: readonly string[],
  type: string | undefined,
  maxChars: number,
  bounds: Bounds,
): string {
  const head = [`URL: ${response.url}`]
  if (redirects.length > 0)
    head.push(`Redirected from: ${redirects[0]}${redirects.length > 1 ? ` (${redirects.length} redirects)` : ''}`)
  head.push(`Content-Type: ${type ?? 'none given (read as text)'}`)
  if (page.title !== undefined) head.push(`Title: ${page.title}`)
  const notes: string[] = []
  if (response.truncated) notes.push(`[The response is longer than ${bounds.maxBytes} bytes; only its start was read.]`)
  let text = page.text
  if (text.length > maxChars) {
    notes.push(
      `[Cut at ${maxChars} of ${text.length} characters; ask for more with max_chars, up to ${WEB_FETCH_MAX_CHARS}.]`,
    )
    text = text.slice(0, maxChars)
  }
  if (text.trim() === '') text = '(the page has no readable text)'
  return [head.join('\n'), text, ...notes].join('\n\n')
}
