/**
 * The real WebClient: node:http and node:https, one request at a time, redirects left to the
 * caller. The host name is resolved here, every address it has is checked, and the connection
 * goes to the checked address (a pinned `lookup`), so a name that resolves to a public address
 * for the check and a private one for the connection (DNS rebinding) cannot slip through
 * (docs/decisions/tools.md #130).
 */
import { lookup as dnsLookup } from 'node:dns/promises'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import type { HostLookup, ResolvedAddress, WebRequestOptions, WebResponse } from '../ports/web-client.port.js'
import { classifyAddress } from '../util/ip-address.js'
import { TOOLKERNEL_VERSION } from '../version.js'

export const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true })

const DEFAULT_HEADERS = {
  'user-agent': `toolkernel-webfetch/${TOOLKERNEL_VERSION}`,
  accept: 'text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,application/json;q=0.8,*/*;q=0.1',
  'accept-encoding': 'gzip, deflate, br',
}

/** One request: the URL checked, the host resolved and checked, the body read up to its bound. */
export async function requestOnce(
  text: string,
  request: WebRequestOptions,
  lookup: HostLookup = systemLookup,
): Promise<WebResponse> {
  const url = new URL(text)
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`only http and https URLs can be fetched, not ${url.protocol}`)
  request.signal.throwIfAborted()
  const target = await untilAborted(checkedAddress(url, request, lookup), request.signal)
  const response = await send(url, target, request)
  return read(response, url, target, request)
}

/** The address to connect to: every address of the host is checked, the first is used. */
async function checkedAddress(url: URL, options: WebRequestOptions, lookup: HostLookup): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const literal = classifyAddress(host) !== 'not an IP address'
  let addresses: readonly ResolvedAddress[]
  if (literal) addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }]
  else {
    try {
      addresses = await lookup(host)
    } catch (error) {
      const code = (error as { code?: unknown }).code
      throw new Error(`the host ${host} could not be resolved (${typeof code === 'string' ? code : String(error)})`)
    }
  }
  const first = addresses[0]
  if (first === undefined) throw new Error(`the host ${host} has no address`)
  if (options.allowPrivateAddresses === true) return first
  for (const { address } of addresses) {
    const kind = classifyAddress(address)
    if (kind === 'public') continue
    const named = literal ? `${host} is` : `${host} resolves to ${address}, which is`
    throw new Error(
      `refused: ${named} a ${kind} address; only public internet addresses are fetched (an app may allow private ones)`,
    )
  }
  return first
}

/** A lookup that answers only the checked address, whatever name it is asked about. */
function pinned(target: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all === true) callback(null, [{ address: target.address, family: target.family }])
    else callback(null, target.address, target.family)
  }
}

function send(url: URL, target: ResolvedAddress, options: WebRequestOptions): Promise<IncomingMessage> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'GET',
      headers: { ...DEFAULT_HEADERS, ...options.headers },
      lookup: pinned(target),
      // No pooled sockets: a kept-alive connection made for another check must not be reused.
      agent: false,
      signal: options.signal,
    })
    req.on('response', resolve)
    req.on('error', (error) => reject(failure(error, url, options.signal)))
    req.end()
  })
}

async function read(
  response: IncomingMessage,
  url: URL,
  target: ResolvedAddress,
  options: WebRequestOptions,
): Promise<WebResponse> {
  const status = response.statusCode ?? 0
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  const base = { url: url.href, status, statusText: response.statusMessage ?? '', headers, address: target.address }
  // A redirect's body is never read: the caller needs its location only.
  if (status >= 300 && status < 400 && headers.location !== undefined) {
    response.destroy()
    return { ...base, body: new Uint8Array(0), truncated: false }
  }
  const { body, truncated } = await readBounded(decoded(response), options.maxBytes, options.signal, url)
  return { ...base, body, truncated }
}

/** The body with its content encoding undone; the bound applies to what comes out. */
function decoded(response: IncomingMessage): Readable {
  const encoding = (response.headers['content-encoding'] ?? 'identity').trim().toLowerCase()
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined
  if (decoder === undefined) {
    if (encoding !== 'identity' && encoding !== '') {
      response.destroy()
      throw new Error(`the response is encoded as ${encoding}, which cannot be decoded`)
    }
    return response
  }
  return pipeline(response, decoder, () => {})
}

async function readBounded(
  stream: Readable,
  maxBytes: number,
  signal: AbortSignal,
  url: URL,
): Promise<{ body: Uint8Array; truncated: boolean }> {
  const chunks: Buffer[] = []
  let size = 0
  let truncated = false
  const stop = (): void => void stream.destroy(new Error('aborted'))
  signal.addEventListener('abort', stop, { once: true })
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size))
        size = maxBytes
        truncated = true
        break
      }
      chunks.push(chunk)
      size += chunk.length
    }
  } catch (error) {
    throw failure(error, url, signal)
  } finally {
    signal.removeEventListener('abort', stop)
    stream.destroy()
  }
  return { body: Buffer.concat(chunks, size), truncated }
}

function failure(error: unknown, url: URL, signal: AbortSignal): Error {
  if (signal.aborted) return new Error(`the request to ${url.host} was aborted`)
  const code = (error as { code?: unknown }).code
  const message = error instanceof Error ? error.message : String(error)
  return new Error(`the request to ${url.host} failed (${typeof code === 'string' ? `${code}: ` : ''}${message})`)
}

/** The promise, or a rejection as soon as the signal aborts (a DNS lookup cannot be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const abort = (): void => reject(new Error('the request was aborted'))
    signal.addEventListener('abort', abort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort))
  })
}
