import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebClient,
  createWebFetch,
  WebFetch,
  type HostLookup,
  type KernelOptions,
  type Tool,
  type ToolResultBlock,
} from '../../../src/index.js'
import { fakeClock } from '../../../src/testing/index.js'
import { textOf } from '../../../src/tools/to-api-format.js'
import { assistant, gate, testKernel } from '../../helpers.js'
import { text } from './setup.js'

const ARTICLE = `<!doctype html><html><head><title>Tides of the North Sea</title></head><body>
<nav><a href="/">Home</a> | <a href="/about">About us</a> | Subscribe now</nav>
<article><h1>Tides of the North Sea</h1>
<p>${'The North Sea has two high tides a day, and the range varies a great deal along its coasts. '.repeat(8)}</p>
<p>See <a href="/charts/tides">the tide charts</a> for the times. ${'Sailors plan their passages around the tidal streams. '.repeat(8)}</p>
<pre><code>high_water = lunar_transit + 2h</code></pre>
</article><footer>Copyright footer text</footer></body></html>`

let server: Server
let port = 0
/** Paths requested, in order; a test reads its own part. */
const requested: string[] = []
/** Opened when /slow has sent its first chunk; the response's `close` opens `slowClosed`. */
let slowSent = gate()
let slowClosed = gate()

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/article': (_q, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE),
  '/gzip': (_q, res) =>
    res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync(ARTICLE)),
  '/r1': (_q, res) => res.writeHead(302, { location: '/r2' }).end('moved'),
  '/r2': (_q, res) => res.writeHead(301, { location: `http://other.test:${port}/article` }).end(),
  '/loop': (_q, res) => res.writeHead(302, { location: '/loop' }).end(),
  '/to-denied': (_q, res) => res.writeHead(302, { location: `http://denied.test:${port}/article` }).end(),
  '/to-file': (_q, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end(),
  '/plain': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('just some text\nline two\n'),
  '/json': (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"tide":"high","metres":4.2}'),
  '/binary': (_q, res) =>
    res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1])),
  '/missing': (_q, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<p>no such page</p>'),
  '/huge': (_q, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' })
    // Far more than the bound, written as the client reads; the client stops reading early.
    let left = 400
    const more = (): void => {
      while (left > 0) {
        left--
        if (!res.write('x'.repeat(1023) + '\n')) return void res.once('drain', more)
      }
      res.end()
    }
    res.on('error', () => {})
    more()
  },
  '/slow': (_q, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.write('first chunk, and then nothing more, ever\n')
    res.on('close', () => slowClosed.open())
    slowSent.open()
  },
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    requested.push(`${req.headers.host?.split(':')[0]}${path}`)
    const route = routes[path]
    if (route === undefined) res.writeHead(404).end()
    else route(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

/** Host names of the tests' own, all on loopback (the system resolver knows none of them). */
const loopbackNames: HostLookup = async (host) => {
  if (/\.test\.?$/.test(host)) return [{ address: '127.0.0.1', family: 4 }]
  throw Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' })
}

const local = createWebFetch({ allowPrivateAddresses: true, maxBytes: 20_000 })

/** A kernel with one WebFetch; bypassPermissions unless the options say otherwise. */
function fetcher(tool: Tool = local, options: Partial<KernelOptions> = {}, lookup: HostLookup = loopbackNames) {
  const kernel = testKernel([tool], {
    permissions: { mode: 'bypassPermissions' },
    approvals: 'deny',
    ...options,
    ports: { web: createWebClient({ lookup }), ...options.ports },
  })
  let n = 0
  return async (input: unknown, signal?: AbortSignal): Promise<ToolResultBlock> => {
    const { message } = await kernel.runTurn(assistant([`f${++n}`, 'WebFetch', input]), signal ? { signal } : {})
    return message.content[0] as ToolResultBlock
  }
}

const url = (path: string, host = 'site.test'): string => `http://${host}:${port}${path}`

describe('WebFetch', () => {
  it('returns an HTML page as Markdown of its article, links made absolute, navigation left out', async () => {
    const block = await fetcher()({ url: url('/article') })
    expect(block.is_error).toBeFalsy()
    const out = text(block)
    expect(out).toMatch(
      /^URL: http:\/\/site\.test:\d+\/article\nContent-Type: text\/html\nTitle: Tides of the North Sea\n\n/,
    )
    expect(out).toContain('The North Sea has two high tides a day')
    expect(out).toContain(`[the tide charts](http://site.test:${port}/charts/tides)`)
    expect(out).toContain('```\nhigh_water = lunar_transit + 2h\n```')
    expect(out).not.toContain('Subscribe now')
    expect(out).not.toContain('<p>')
  })

  it('gives plain text or the HTML as served when asked, and undoes gzip', async () => {
    const call = fetcher()
    const plain = text(await call({ url: url('/article'), format: 'text' }))
    expect(plain).toContain('Sailors plan their passages')
    expect(plain).not.toMatch(/\]\(http/)
    expect(text(await call({ url: url('/article'), format: 'html' }))).toContain('<nav><a href="/">Home</a>')
    expect(text(await call({ url: url('/gzip') }))).toContain('The North Sea has two high tides a day')
  })

  it('cuts the text at max_chars and says so', async () => {
    const out = text(await fetcher()({ url: url('/article'), max_chars: 1000 }))
    expect(out).toMatch(/\[Cut at 1000 of \d+ characters; ask for more with max_chars, up to 100000\.\]$/)
  })

  it('returns text/plain and JSON as they are', async () => {
    const call = fetcher()
    expect(text(await call({ url: url('/plain') }))).toBe(
      `URL: ${url('/plain')}\nContent-Type: text/plain\n\njust some text\nline two\n`,
    )
    expect(text(await call({ url: url('/json') }))).toMatch(
      /Content-Type: application\/json\n\n\{"tide":"high","metres":4\.2\}$/,
    )
  })

  it('refuses binary content, naming its type', async () => {
    const block = await fetcher()({ url: url('/binary') })
    expect(block.is_error).toBe(true)
    expect(text(block)).toMatch(
      /is image\/png \(8 bytes\), which WebFetch does not read: it reads HTML pages, text and JSON/,
    )
  })

  it('reports an HTTP error status', async () => {
    const block = await fetcher()({ url: url('/missing') })
    expect(block.is_error).toBe(true)
    expect(text(block)).toMatch(/answered HTTP 404 Not Found/)
  })

  it('stops reading past maxBytes and says the response was cut', async () => {
    const out = text(await fetcher()({ url: url('/huge'), max_chars: 100_000 }))
    expect(out).toMatch(/\[The response is longer than 20000 bytes; only its start was read\.\]$/)
    const body = out.split('\n\n')[1] as string
    expect(body.length).toBe(20_000)
  })

  it('follows redirects by hand, each one checked, and names where it came from', async () => {
    const out = text(await fetcher()({ url: url('/r1') }))
    expect(out).toMatch(
      new RegExp(
        `^URL: http://other\\.test:${port}/article\\nRedirected from: http://site\\.test:${port}/r1 \\(2 redirects\\)`,
      ),
    )
    expect(out).toContain('two high tides')
  })

  it('refuses a redirect loop past maxRedirects, and a redirect to another scheme', async () => {
    const call = fetcher(createWebFetch({ allowPrivateAddresses: true, maxRedirects: 3 }))
    const loop = await call({ url: url('/loop') })
    expect(loop.is_error).toBe(true)
    expect(text(loop)).toMatch(/redirected more than 3 times/)
    expect(text(await call({ url: url('/to-file') }))).toMatch(
      /redirects to file:\/\/\/etc\/passwd, which is refused: url uses file:; WebFetch fetches http:\/\/ and https:\/\/ URLs only/,
    )
  })

  it('ends a response that never ends when the turn is aborted, and closes the connection', async () => {
    slowSent = gate()
    slowClosed = gate()
    const controller = new AbortController()
    const result = fetcher()({ url: url('/slow') }, controller.signal)
    await slowSent.opened
    controller.abort('the user stopped')
    const block = await result
    expect(block.is_error).toBe(true)
    await slowClosed.opened
  })

  it('ends a response that never ends at its own deadline (the kernel clock), and closes the connection', async () => {
    slowSent = gate()
    slowClosed = gate()
    const clock = fakeClock()
    const call = fetcher(createWebFetch({ allowPrivateAddresses: true, timeoutMs: 5_000 }), { ports: { clock } })
    const result = call({ url: url('/slow') })
    await slowSent.opened
    clock.advance(5_000)
    const block = await result
    expect(block.is_error).toBe(true)
    expect(text(block)).toMatch(/WebFetch timed out: it ran out of time after 5000 ms/)
    await slowClosed.opened
  })

  it('pins the address it checked: the connection does not resolve the name again', async () => {
    let lookups = 0
    // A rebinding resolver: loopback the first time, an unroutable private address after.
    const rebinding: HostLookup = async () =>
      lookups++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.255.255.1', family: 4 }]
    const out = text(await fetcher(local, {}, rebinding)({ url: url('/plain') }))
    expect(out).toContain('just some text')
    expect(lookups).toBe(1)
  })
})

describe('WebFetch address policy', () => {
  const refused = async (target: string, lookup?: HostLookup): Promise<string> => {
    const before = requested.length
    const block = await fetcher(WebFetch, {}, lookup)({ url: target })
    expect(block.is_error).toBe(true)
    expect(requested.length).toBe(before) // nothing reached the server
    return text(block)
  }

  it('refuses loopback by default, however it is written', async () => {
    expect(await refused(`http://127.0.0.1:${port}/plain`)).toMatch(
      /refused: 127\.0\.0\.1 is a loopback address; only public internet addresses are fetched/,
    )
    // Node's URL parser reads 0x7f.1 and 2130706433 as 127.0.0.1: the check sees the address.
    expect(await refused(`http://0x7f.1:${port}/plain`)).toMatch(/127\.0\.0\.1 is a loopback address/)
    expect(await refused(`http://2130706433:${port}/plain`)).toMatch(/127\.0\.0\.1 is a loopback address/)
    expect(await refused(`http://[::1]:${port}/plain`)).toMatch(/::1 is a loopback address/)
    expect(await refused(`http://[::ffff:127.0.0.1]:${port}/plain`)).toMatch(/is a loopback address/)
  })

  it('refuses a host name that resolves to loopback (the system resolver: localhost)', async () => {
    const { createWebClient: real } = await import('../../../src/index.js')
    const before = requested.length
    const kernel = testKernel([WebFetch], { permissions: { mode: 'bypassPermissions' }, ports: { web: real() } })
    const { message } = await kernel.runTurn(assistant(['l', 'WebFetch', { url: `http://localhost:${port}/plain` }]))
    const block = message.content[0] as ToolResultBlock
    expect(text(block)).toMatch(/refused: localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/)
    expect(requested.length).toBe(before)
  })

  it('refuses a name when any of its addresses is private', async () => {
    const mixed: HostLookup = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ]
    expect(await refused('http://metadata.example/latest', mixed)).toMatch(
      /metadata\.example resolves to 169\.254\.169\.254, which is a link-local address/,
    )
  })

  it('refuses a redirect to a private address', async () => {
    // The first hop is allowed (private addresses allowed for site.test only), the second not.
    const oneName: HostLookup = async (host) =>
      host === 'site.test' ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.7', family: 4 }]
    const block = await fetcher(WebFetch, {}, oneName)({ url: url('/r1') })
    expect(block.is_error).toBe(true)
    expect(text(block)).toMatch(/site\.test resolves to 127\.0\.0\.1, which is a loopback address/)
  })

  it('refuses what is not an http(s) URL, and URLs with credentials, before anything runs', async () => {
    const call = fetcher()
    expect(text(await call({ url: 'ftp://site.test/x' }))).toMatch(/url uses ftp:; WebFetch fetches http/)
    expect(text(await call({ url: 'site.test/x' }))).toMatch(/is not an absolute URL/)
    expect(text(await call({ url: `http://me:pw@site.test:${port}/plain` }))).toMatch(/carries a user name or password/)
  })
})

describe('WebFetch permission rules', () => {
  it('asks about a host no rule allows; an allow rule for the domain lets it run', async () => {
    const asked = await fetcher(local, { permissions: { mode: 'default' } })({ url: url('/plain') })
    expect(asked.is_error).toBe(true)
    expect(text(asked)).toMatch(/needs approval \(fetch from site\.test\)/)
    const allowed = fetcher(local, { permissions: { mode: 'default', allow: ['WebFetch(domain:site.test)'] } })
    expect(text(await allowed({ url: url('/plain') }))).toContain('just some text')
    // The rule names that host exactly: a subdomain is asked about.
    expect(text(await allowed({ url: url('/plain', 'www.site.test') }))).toMatch(/needs approval/)
  })

  it('a *.domain rule covers the subdomains, not the domain itself', async () => {
    const call = fetcher(local, { permissions: { mode: 'default', allow: ['WebFetch(domain:*.site.test)'] } })
    expect(text(await call({ url: url('/plain', 'docs.site.test') }))).toContain('just some text')
    expect(text(await call({ url: url('/plain', 'DOCS.Site.TEST.') }))).toContain('just some text')
    expect(text(await call({ url: url('/plain', 'site.test') }))).toMatch(/needs approval/)
  })

  it('a deny rule refuses the domain, also as a redirect target', async () => {
    const call = fetcher(local, { permissions: { mode: 'bypassPermissions', deny: ['WebFetch(domain:denied.test)'] } })
    const direct = await call({ url: url('/plain', 'denied.test') })
    expect(text(direct)).toMatch(/the rule WebFetch\(domain:denied\.test\) denies it/)
    const before = requested.length
    const redirected = await call({ url: url('/to-denied') })
    expect(redirected.is_error).toBe(true)
    expect(text(redirected)).toMatch(
      new RegExp(
        `redirects to http://denied\\.test:${port}/article, which the rule WebFetch\\(domain:denied\\.test\\) denies`,
      ),
    )
    expect(requested.slice(before)).toEqual(['site.test/to-denied'])
  })

  it('does not follow a redirect to another host that would need asking; the model may fetch it itself', async () => {
    const call = fetcher(local, { permissions: { mode: 'default', allow: ['WebFetch(domain:site.test)'] } })
    const out = text(await call({ url: url('/r1') }))
    expect(out).toBe(
      `http://site.test:${port}/r2 redirects to http://other.test:${port}/article, on another host that needs approval (no rule allows it); it was not followed. To read it, call WebFetch with url "http://other.test:${port}/article".`,
    )
    const both = fetcher(local, {
      permissions: { mode: 'default', allow: ['WebFetch(domain:site.test)', 'WebFetch(domain:other.test)'] },
    })
    expect(text(await both({ url: url('/r1') }))).toContain('two high tides')
  })

  it('follows a redirect on the same host under an ask rule: the host was decided', async () => {
    const call = fetcher(local, {
      permissions: { mode: 'default', ask: ['WebFetch(domain:site.test)'] },
      canUseTool: () => ({ behavior: 'allow' }),
    })
    const before = requested.length
    const out = text(await call({ url: url('/r1') }))
    expect(out).toMatch(
      /redirects to http:\/\/other\.test:\d+\/article, on another host that needs approval \(no rule allows it\)/,
    )
    expect(requested.slice(before)).toEqual(['site.test/r1', 'site.test/r2'])
  })

  it('refuses rule specifiers WebFetch cannot match, at createKernel', () => {
    const make = (rule: string) => () => testKernel([local], { permissions: { allow: [rule] } })
    expect(make('WebFetch(https://example.com)')).toThrow(
      /has the specifier "https:\/\/example\.com", but WebFetch rules take domain:<host name>, e.g\. WebFetch\(domain:example\.com\)/,
    )
    expect(make('WebFetch(example.com)')).toThrow(/WebFetch rules take domain:<host name>/)
    expect(make('WebFetch(domain:exa mple.com)')).toThrow(/has a domain that is not a host name/)
    expect(make('WebFetch(domain:https://example.com/)')).toThrow(/has a domain that is not a host name/)
    expect(make('WebFetch(domain:*.example.com)')).not.toThrow()
    expect(make('WebFetch')).not.toThrow()
  })

  it('suggests a domain rule when it asks', async () => {
    const requests: string[][] = []
    const call = fetcher(local, {
      permissions: { mode: 'default' },
      canUseTool: (request) => (requests.push(request.suggestions), { behavior: 'allow' }),
    })
    expect(text(await call({ url: url('/plain') }))).toContain('just some text')
    expect(requests).toEqual([['WebFetch(domain:site.test)']])
  })
})

describe('createWebFetch', () => {
  it('refuses bounds that are not positive integers', () => {
    expect(() => createWebFetch({ maxBytes: 0 })).toThrow(/maxBytes must be an integer of at least 1, got 0/)
    expect(() => createWebFetch({ maxRedirects: -1 })).toThrow(/maxRedirects must be an integer of at least 0/)
    expect(() => createWebFetch({ timeoutMs: 1.5 })).toThrow(/timeoutMs must be an integer/)
  })

  it('describes itself to the model: no prompt, no model, the limits', () => {
    const prompt = textOf(WebFetch, 'prompt')
    expect(prompt).toMatch(/takes no prompt and runs no model over the page/)
    expect(prompt).toMatch(/private, loopback or link-local addresses .* are refused/)
    expect(WebFetch.isReadOnly({ url: 'https://x' })).toBe(true)
    expect(WebFetch.isOpenWorld({ url: 'https://x' })).toBe(true)
    expect(WebFetch.isConcurrencySafe({ url: 'https://x' })).toBe(true)
    expect(WebFetch.interruptBehavior()).toBe('cancel')
  })
})
