/**
 * `sandbox.network: { allowDomains }` (issue 30): a proxy outside the sandbox lets through only the
 * listed domains; the sandbox's own network namespace has no other way out. Real processes: a
 * loopback HTTP server on the host, and node inside the sandbox as the client (curl may not be
 * there), through HTTP_PROXY as the sandbox sets it. `localhost` is allowed; `127.0.0.1` — the same
 * server — is not, so a refusal is by name. Needs bubblewrap; the option checks run everywhere.
 */
import { writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { Bash, createBubblewrap, createKernel, replay, type Sandbox, type SandboxOptions } from '../../src/index.js'
import { domainMatches } from '../../src/adapters/domain-proxy.js'
import { bubblewrap } from '../programs.js'
import { makePlace, removePlaces, type Place } from './sandbox.fixtures.js'

afterAll(removePlaces)

/** The client in the sandbox: `http host:port` (a proxied GET), `connect host:port` (a tunnel), `direct host:port`. */
const CLIENT = `
const http = require('node:http'), net = require('node:net')
const [mode, target] = process.argv.slice(2)
const proxy = process.env.HTTP_PROXY === undefined ? undefined : new URL(process.env.HTTP_PROXY)
if (mode === 'env') console.log('PROXY', process.env.HTTP_PROXY, process.env.HTTPS_PROXY, process.env.ALL_PROXY)
else if (mode === 'http')
  http.get({ host: proxy.hostname, port: proxy.port, path: 'http://' + target + '/' }, (res) => {
    let body = ''
    res.on('data', (d) => (body += d))
    res.on('end', () => console.log('STATUS', res.statusCode, body.trim()))
  }).on('error', (e) => console.log('ERROR', e.message))
else if (mode === 'connect') {
  const req = http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: target })
  req.on('connect', (res, socket) => {
    if (res.statusCode !== 200) { console.log('STATUS', res.statusCode); socket.destroy(); return }
    socket.write('GET / HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n')
    let body = ''
    socket.on('data', (d) => (body += d))
    socket.on('end', () => console.log('TUNNEL', body.split('\\r\\n\\r\\n')[1]))
  })
  req.on('error', (e) => console.log('ERROR', e.message))
  req.end()
} else {
  const [host, port] = target.split(':')
  net.connect(Number(port), host).on('connect', () => { console.log('CONNECTED'); process.exit(0) }).on('error', (e) => console.log('ERROR', e.code))
}
`

describe('network.allowDomains is checked at createKernel', () => {
  const make = (network: unknown) => () =>
    createKernel({ tools: [Bash], sandbox: { mode: 'workspace-write', network } as SandboxOptions })
  it.for([
    [{ allowDomains: [] }, /network\.allowDomains must be a non-empty list of domains/],
    [{ allowDomains: ['http://example.com'] }, /"http:\/\/example\.com" is not a host name/],
    [{ allowDomains: ['exa mple.com'] }, /is not a host name/],
    [{ allowed: ['example.com'] }, /network must be 'off', 'on' or \{ allowDomains: \[\.\.\.\] \}/],
  ] as const)('%j is refused', ([network, message]) => {
    expect(make(network)).toThrow(message)
  })

  it('a list of names and suffix patterns is accepted', () => {
    expect(make({ allowDomains: ['registry.npmjs.org', '*.github.com'] })).not.toThrow()
  })

  it('matches a name exactly, and a suffix pattern its subdomains only', () => {
    expect(domainMatches('example.com', 'EXAMPLE.com.')).toBe(true)
    expect(domainMatches('example.com', 'api.example.com')).toBe(false)
    expect(domainMatches('*.example.com', 'api.example.com')).toBe(true)
    expect(domainMatches('*.example.com', 'example.com')).toBe(false)
    expect(domainMatches('*.example.com', 'badexample.com')).toBe(false)
  })
})

describe.skipIf(!bubblewrap)('only the allowed domains, through the proxy (needs bubblewrap)', () => {
  let server: Server
  let port: number
  let place: Place
  let client: string
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('HELLO'))
    // Both families: 'localhost' may resolve to ::1 first.
    await new Promise<void>((resolve) => server.listen(0, '::', resolve))
    port = (server.address() as AddressInfo).port
    place = makePlace()
    client = join(place.ws, 'client.cjs')
    writeFileSync(client, CLIENT)
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const sandbox: SandboxOptions = { mode: 'workspace-write', network: { allowDomains: ['localhost'] } }

  /** A kernel closed when the test ends: its proxy's socket directory goes with it. */
  function closedAfter<K extends { close(): Promise<void> }>(kernel: K): K {
    onTestFinished(() => kernel.close())
    return kernel
  }

  async function run(args: string, options: { sandbox?: SandboxOptions } = { sandbox }) {
    const kernel = closedAfter(
      createKernel({
        tools: [Bash],
        cwd: place.ws,
        permissions: { mode: 'bypassPermissions' },
        ...options,
      }),
    )
    const { message } = await kernel.runTurn({
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id: 'toolu_1',
          name: 'Bash',
          input: { command: `node client.cjs ${args}`, timeout: 30_000 },
        },
      ],
      stop_reason: 'tool_use',
    })
    return { text: JSON.stringify(message.content[0]?.content), kernel }
  }

  it('the command is pointed at the proxy', async () => {
    const { text } = await run('env')
    expect(text).toMatch(/PROXY http:\/\/127\.0\.0\.1:\d+ http:\/\/127\.0\.0\.1:\d+ http:\/\/127\.0\.0\.1:\d+/)
  })

  it('an allowed domain passes, over HTTP and through a CONNECT tunnel', async () => {
    expect((await run(`http localhost:${port}`)).text).toContain('STATUS 200 HELLO')
    expect((await run(`connect localhost:${port}`)).text).toContain('TUNNEL HELLO')
  })

  it('another name is refused with 403, over HTTP and CONNECT, and names the setting', async () => {
    const http = await run(`http 127.0.0.1:${port}`)
    expect(http.text).toMatch(
      /STATUS 403 toolkernel sandbox proxy: 127\.0\.0\.1 is not in sandbox\.network\.allowDomains/,
    )
    expect((await run(`connect 127.0.0.1:${port}`)).text).toContain('STATUS 403')
  })

  it('a program that ignores the proxy reaches nothing', async () => {
    const { text } = await run(`direct 127.0.0.1:${port}`)
    expect(text).toMatch(/ERROR ECONNREFUSED/)
    expect(text).not.toContain('CONNECTED')
  })

  it("control: with network 'on' the same direct connection is made", async () => {
    const { text } = await run(`direct 127.0.0.1:${port}`, { sandbox: { mode: 'workspace-write', network: 'on' } })
    expect(text).toContain('CONNECTED')
  })

  it('the exit code and output of the command come through the forwarder', async () => {
    const kernel = closedAfter(
      createKernel({ tools: [Bash], cwd: place.ws, permissions: { mode: 'bypassPermissions' }, sandbox }),
    )
    const { message } = await kernel.runTurn({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo out; exit 3' } }],
      stop_reason: 'tool_use',
    })
    const text = JSON.stringify(message.content[0]?.content)
    expect(text).toContain('out')
    expect(text).toMatch(/exit code 3|exited with code 3|Exit code: 3/i)
  })

  it('session.configured records the list, and a replay builds the same sandbox', async () => {
    const { kernel } = await run('env')
    const configured = kernel.log.read().find((e) => e.type === 'session.configured')
    expect(configured).toMatchObject({ sandbox: { network: 'allowDomains', allowDomains: ['localhost'] } })
    const again = await replay(kernel.log.read(), { tools: [Bash], cwd: place.ws })
    expect(again.ok, JSON.stringify(again).slice(0, 2000)).toBe(true)
  })

  it('kernel.close() stops the proxy: its socket refuses connections after it', async () => {
    // The provider the kernel uses, watched: the socket's path is on the command line it wraps.
    const bubblewrapProvider = createBubblewrap()
    const made: Sandbox[] = []
    const kernel = createKernel({
      tools: [Bash],
      cwd: place.ws,
      permissions: { mode: 'bypassPermissions' },
      sandbox,
      ports: {
        sandbox: {
          name: 'bubblewrap',
          create: (policy, scope) => (made.push(bubblewrapProvider.create(policy, scope)), made.at(-1) as Sandbox),
        },
      },
    })
    const { message } = await kernel.runTurn({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo ran' } }],
      stop_reason: 'tool_use',
    })
    expect(JSON.stringify(message.content[0]?.content)).toContain('ran')
    const socket = made
      .flatMap((s) => s.wrap({ file: 'true', args: [] }, place.ws).args)
      .find((a) => a.endsWith('proxy.sock'))
    expect(socket).toBeDefined()
    const reach = () =>
      new Promise<string>((resolve) => {
        const c = connect(socket as string)
        c.once('connect', () => (c.destroy(), resolve('connected')))
        c.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
      })
    // Control: while the kernel is open the proxy answers.
    expect(await reach()).toBe('connected')
    await kernel.close()
    expect(await reach()).toMatch(/ECONNREFUSED|ENOENT/)
  })
})
