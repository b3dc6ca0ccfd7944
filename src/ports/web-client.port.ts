/**
 * The web as a tool reaches it: one HTTP request, never following a redirect (the caller checks
 * each hop, docs/decisions/tools.md #130), its body read up to a bound.
 */

/** A resolved address, as `dns.lookup(host, { all: true })` gives them. */
export interface ResolvedAddress {
  readonly address: string
  readonly family: number
}

/** Resolves a host name to all its addresses (default: the system resolver, `dns.lookup`). */
export type HostLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>

export interface WebRequestOptions {
  /** Aborts the request and the body read. */
  readonly signal: AbortSignal
  /** Stop reading the (decoded) body past this many bytes; the response says it was cut. */
  readonly maxBytes: number
  /**
   * Connect to loopback, private, link-local, unique-local, shared (CGNAT), multicast or
   * unspecified addresses too. Default false: a host name with any such address is refused.
   */
  readonly allowPrivateAddresses?: boolean
  /** Request headers (a user agent and an Accept header are the adapter's default). */
  readonly headers?: Readonly<Record<string, string>>
}

export interface WebResponse {
  /** The URL requested (a redirect is a response like any other: `location` says where). */
  readonly url: string
  readonly status: number
  readonly statusText: string
  /** Header names lower-cased; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  /** The body as received after content decoding (gzip, deflate, br), at most `maxBytes`. */
  readonly body: Uint8Array
  /** The body went on past `maxBytes` and was not read further. */
  readonly truncated: boolean
  /** The IP address the connection went to (the one checked). */
  readonly address: string
}

/**
 * Sends one request. Throws an Error saying why for what the caller should show the model: a
 * refused address, a host that does not resolve, a connection that fails, an abort.
 */
export interface WebClient {
  request(url: string, options: WebRequestOptions): Promise<WebResponse>
}
