/**
 * The real WebClient: node:http and node:https, one request at a time, redirects left to the
 * caller (src/adapters/web-request.ts, imported on the first request: the kernel's import stays
 * light, docs/decisions/performance.md #66).
 */
import type { HostLookup, WebClient } from '../ports/web-client.port.js'
import type * as WebRequest from './web-request.js'
import { checkOptionsObject } from '../util/known-options.js'

export interface WebClientOptions {
  /** How host names resolve: tests map names of their own to loopback with it. */
  lookup?: HostLookup
}

/**
 * The web over node:http and node:https. Every address a host name resolves to is checked; the
 * connection goes to the checked one (docs/decisions/tools.md #130).
 *
 * @example
 * createKernel({ tools: [WebFetch], ports: { web: createWebClient({ lookup: myResolver }) } })
 */
export function createWebClient(options: WebClientOptions = {}): WebClient {
  checkOptionsObject('createWebClient', options, ['lookup'])
  if (options.lookup !== undefined && typeof options.lookup !== 'function')
    throw new TypeError('createWebClient: lookup must be a function (host name) => Promise<{ address, family }[]>')
  let loaded: Promise<typeof WebRequest> | undefined
  return {
    async request(url, request) {
      loaded ??= import('./web-request.js')
      return (await loaded).requestOnce(url, request, options.lookup)
    },
  }
}
