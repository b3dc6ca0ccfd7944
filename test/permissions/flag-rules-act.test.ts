/**
 * `@openWorld` and `@readOnly` rules (docs/decisions/permissions.md, 170) deciding real calls
 * through a real kernel: `ask: ['@openWorld']` makes WebFetch (against an HTTP server on loopback)
 * ask while Read does not; `allow: ['@readOnly']` decides Read, Grep and a read-only tool that
 * asks on its own (which then runs unasked) while Write asks. Each has a control run without the
 * rule, where the calls are decided otherwise, so the rule is what decides.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  createWebFetch,
  Grep,
  Read,
  Write,
  type KernelEvent,
  type KernelOptions,
  type PermissionRequest,
} from '../../src/index.js'
import { assistant, scratchDirs, testKernel } from '../helpers.js'

const dir = scratchDirs()

let server: Server
let url = ''
beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('the tide is high\n'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tide`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

/** Runs one turn with `permissions`; every ask is noted and allowed. */
async function asks(
  tools: KernelOptions['tools'],
  cwd: string,
  permissions: NonNullable<KernelOptions['permissions']>,
  uses: Parameters<typeof assistant>,
) {
  const asked: PermissionRequest[] = []
  const kernel = testKernel(tools, {
    cwd,
    permissions,
    canUseTool: (request) => {
      asked.push(request)
      return { behavior: 'allow' }
    },
  })
  await kernel.ready()
  const { message, events } = await kernel.runTurn(assistant(...uses))
  return { asked: asked.map((r) => r.toolUseId), requests: asked, message, events }
}

describe('@openWorld and @readOnly rules act on calls', () => {
  it('ask @openWorld: WebFetch asks, Read runs unasked; without the rule neither asks', async () => {
    const cwd = dir('tk-open-')
    writeFileSync(join(cwd, 'a.txt'), 'alpha\n')
    const WebFetch = createWebFetch({ allowPrivateAddresses: true })
    const uses: Parameters<typeof assistant> = [
      ['r', 'Read', { file_path: join(cwd, 'a.txt') }],
      ['f', 'WebFetch', { url }],
    ]
    const allow = ['Read', 'WebFetch']
    const control = await asks([Read, WebFetch], cwd, { allow }, uses)
    expect(control.asked).toEqual([])
    const ruled = await asks([Read, WebFetch], cwd, { allow, ask: ['@openWorld'] }, uses)
    expect(ruled.asked).toEqual(['f'])
    expect(ruled.requests[0]?.flags).toMatchObject({ openWorld: true })
    // Asked and allowed, the fetch ran against the server; Read was allowed by its rule.
    expect(JSON.stringify(ruled.message.content[1]?.content)).toContain('the tide is high')
    expect(ruled.message.content.every((block) => block.is_error !== true)).toBe(true)
    const permitted = ruled.events.filter((e) => e.type === 'tool.permitted')
    expect(permitted.map((e) => [e.toolUseId, e.source, e.flags?.openWorld])).toEqual([
      ['r', 'rule', false],
      ['f', 'user', true],
    ])
  })

  it('deny @openWorld: WebFetch is denied in words and the server never asked; Read runs', async () => {
    const cwd = dir('tk-open-')
    writeFileSync(join(cwd, 'a.txt'), 'alpha\n')
    let hits = 0
    server.once('request', () => hits++)
    const WebFetch = createWebFetch({ allowPrivateAddresses: true })
    const { message } = await asks([Read, WebFetch], cwd, { allow: ['Read', 'WebFetch'], deny: ['@openWorld'] }, [
      ['r', 'Read', { file_path: join(cwd, 'a.txt') }],
      ['f', 'WebFetch', { url }],
    ])
    expect(message.content[0]?.is_error).not.toBe(true)
    expect(message.content[1]?.is_error).toBe(true)
    expect(JSON.stringify(message.content[1]?.content)).toContain('the rule @openWorld denies it')
    expect(hits).toBe(0)
  })

  it('allow @readOnly: Read, Grep and a read-only tool that asks run by the rule, unasked; Write asks', async () => {
    const cwd = dir('tk-ro-cwd-')
    const outside = dir('tk-ro-out-')
    writeFileSync(join(outside, 'notes.txt'), 'the tide is high\n')
    // A read-only tool that asks on its own (as a tool reaching a service might): only a rule lets it run unasked.
    const Query = buildTool({
      name: 'Query',
      description: () => 'Queries the tide table.',
      inputSchema: z.object({}),
      isReadOnly: () => true,
      checkPermissions: () => ({ behavior: 'ask', message: 'queries ask' }),
      call: async () => 'high at noon',
    })
    const tools = [Read, Grep, Write, Query]
    const uses: Parameters<typeof assistant> = [
      ['r', 'Read', { file_path: join(outside, 'notes.txt') }],
      ['g', 'Grep', { pattern: 'tide', path: outside }],
      ['q', 'Query', {}],
      ['w', 'Write', { file_path: join(cwd, 'out.txt'), content: 'written\n' }],
    ]
    const decided = (events: readonly KernelEvent[]) =>
      events.flatMap((e) => (e.type === 'tool.permitted' ? [[e.toolUseId, e.source, e.flags?.readOnly]] : []))
    // Without the rule: Read and Grep are allowed by their own check, Query and Write ask.
    const control = await asks(tools, cwd, {}, uses)
    expect(control.asked).toEqual(['q', 'w'])
    expect(decided(control.events)).toEqual([
      ['r', 'tool', true],
      ['g', 'tool', true],
      ['q', 'user', true],
      ['w', 'user', false],
    ])
    rmSync(join(cwd, 'out.txt'))
    // With it: every read-only call is allowed by the rule, unasked; Write still asks.
    const ruled = await asks(tools, cwd, { allow: ['@readOnly'] }, uses)
    expect(ruled.asked).toEqual(['w'])
    expect(ruled.requests[0]?.flags).toMatchObject({ readOnly: false, destructive: true })
    expect(decided(ruled.events)).toEqual([
      ['r', 'rule', true],
      ['g', 'rule', true],
      ['q', 'rule', true],
      ['w', 'user', false],
    ])
    expect(ruled.message.content.filter((block) => block.is_error === true)).toEqual([])
    expect(JSON.stringify(ruled.message.content[0]?.content)).toContain('the tide is high')
    expect(JSON.stringify(ruled.message.content[1]?.content)).toContain('notes.txt')
    expect(ruled.message.content[2]?.content).toBe('high at noon')
    expect(readFileSync(join(cwd, 'out.txt'), 'utf8')).toBe('written\n')
  })
})
