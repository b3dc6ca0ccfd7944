/**
 * `createKernel({ sandbox })` (issue 30 item 1): the option is checked at createKernel, recorded in
 * session.configured, applied to Bash and command hooks with each tool's override, and a sandbox
 * that cannot run fails the call closed with the fix named — never runs it unsandboxed. The
 * fail-closed and configuration tests run everywhere; the rest need bubblewrap.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  Bash,
  BashOutput,
  buildTool,
  createBubblewrap,
  createKernel,
  replay,
  type KernelOptions,
  type SandboxOptions,
} from '../../src/index.js'
import { bubblewrap } from '../programs.js'
import { listen, makePlace, nodeConnect, removePlaces, type Place } from './sandbox.fixtures.js'

afterAll(removePlaces)

const noop = buildTool({
  name: 'Noop',
  description: () => 'does nothing',
  inputSchema: z.strictObject({}),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  call: async () => 'ok',
})

async function bash(place: Place, command: string, options: Partial<KernelOptions> = {}) {
  const kernel = createKernel({
    tools: [Bash, noop],
    cwd: place.ws,
    permissions: { mode: 'bypassPermissions' },
    ...options,
  })
  const { message } = await kernel.runTurn({
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command, timeout: 20_000 } }],
    stop_reason: 'tool_use',
  })
  const block = message.content[0]
  if (block === undefined) throw new Error('no tool_result')
  return { block, text: JSON.stringify(block.content), kernel }
}

describe('the sandbox option is checked at createKernel', () => {
  const make = (sandbox: unknown) => () => createKernel({ tools: [noop], sandbox: sandbox as SandboxOptions })

  it.for([
    [{ mode: 'container' }, /sandbox\.mode must be one of read-only, workspace-write, off, got "container"/],
    [{}, /sandbox\.mode is required/],
    [
      { mode: 'workspace-write', network: { allowDomains: [] } },
      /sandbox\.network\.allowDomains must be a non-empty list/,
    ],
    [
      { mode: 'workspace-write', network: 'proxy' },
      /sandbox\.network must be 'off', 'on' or \{ allowDomains: \[\.\.\.\] \}, got "proxy"/,
    ],
    [{ mode: 'workspace-write', writable: ['relative/dir'] }, /sandbox\.writable must be a list of absolute paths/],
    [{ mode: 'workspace-write', tools: { Bash: { mode: 'nope' } } }, /sandbox\.tools\.Bash\.mode must be one of/],
    [{ mode: 'workspace-write', tools: [] }, /sandbox\.tools must map tool names/],
    ['workspace-write', /sandbox must be an object/],
  ] as const)('%j is refused', ([sandbox, message]) => {
    expect(make(sandbox)).toThrow(message)
  })

  it('session.configured records the sandbox and each tool override (and nothing without one)', async () => {
    const place = makePlace()
    const kernel = createKernel({
      tools: [noop],
      cwd: place.ws,
      sandbox: { mode: 'workspace-write', writable: [place.out], tools: { Bash: { network: 'on' } } },
    })
    await kernel.runTurn({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Noop', input: {} }],
      stop_reason: 'tool_use',
    })
    const configured = kernel.log.read().find((e) => e.type === 'session.configured')
    expect(configured).toMatchObject({
      sandbox: {
        mode: 'workspace-write',
        network: 'off',
        writable: [place.out],
        tools: { Bash: { mode: 'workspace-write', network: 'on', writable: [place.out] } },
      },
    })
    const plain = createKernel({ tools: [noop], cwd: place.ws })
    await plain.runTurn({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Noop', input: {} }],
      stop_reason: 'tool_use',
    })
    expect(plain.log.read().find((e) => e.type === 'session.configured')).not.toHaveProperty('sandbox')
  })
})

describe('fail closed: without a working bubblewrap nothing runs (runs everywhere)', () => {
  const missing = { ports: { sandbox: createBubblewrap({ program: '/nonexistent/tk/bwrap' }) } }

  it('a Bash call is an error naming the fix, and the command did not run', async () => {
    const place = makePlace()
    const { block, text } = await bash(place, `touch ${place.out}/X`, {
      sandbox: { mode: 'workspace-write' },
      ...missing,
    })
    expect(block.is_error).toBe(true)
    expect(text).toMatch(/could not be started.*bubblewrap \(bwrap\).*apt-get install bubblewrap/)
    expect(existsSync(join(place.out, 'X'))).toBe(false)
  })

  it('a command hook does not run, and the call it guards is blocked', async () => {
    const place = makePlace()
    const { block, text } = await bash(place, `touch ${place.ws}/ran`, {
      sandbox: { mode: 'read-only', tools: { Bash: { mode: 'off' } } },
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `touch ${place.out}/hook` }] }] },
      ...missing,
    })
    expect(block.is_error).toBe(true)
    expect(text).toMatch(/bubblewrap/)
    expect(existsSync(join(place.out, 'hook'))).toBe(false)
    expect(existsSync(join(place.ws, 'ran'))).toBe(false)
  })

  it("a tool whose own sandbox is 'off' runs where the kernel's cannot", async () => {
    const place = makePlace()
    const { text } = await bash(place, 'echo ran', {
      sandbox: { mode: 'workspace-write', tools: { Bash: { mode: 'off' } } },
      ...missing,
    })
    expect(text).toContain('ran')
  })
})

describe.skipIf(!bubblewrap)('Bash and hooks in the kernel sandbox (needs bubblewrap)', () => {
  it('Bash writes the workspace, not outside it', async () => {
    const place = makePlace()
    const { text } = await bash(place, `echo in > in.txt && echo out > ${place.out}/X`, {
      sandbox: { mode: 'workspace-write' },
    })
    expect(existsSync(join(place.ws, 'in.txt'))).toBe(true)
    expect(text).toMatch(/read-only file system/i)
    expect(existsSync(join(place.out, 'X'))).toBe(false)
  })

  it("a tool's override applies to it; hooks keep the kernel's sandbox", async () => {
    const place = makePlace()
    const server = await listen()
    try {
      const { text } = await bash(place, nodeConnect(server.port), {
        sandbox: { mode: 'workspace-write', tools: { Bash: { network: 'on' } } },
        hooks: {
          PostToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: `${nodeConnect(server.port)}; true` }] },
          ],
        },
      })
      expect(text).toContain('CONNECTED')
      // Bash's connection only: the hook ran with the kernel's network 'off'.
      expect(server.connections()).toBe(1)
    } finally {
      await server.close()
    }
  })
})

/** Starts `command` with Bash run_in_background, waits for it to exit (BashOutput), and returns what it printed. */
async function background(place: Place, command: string, options: Partial<KernelOptions> = {}) {
  const kernel = createKernel({
    tools: [Bash, BashOutput],
    cwd: place.ws,
    permissions: { mode: 'bypassPermissions' },
    ...options,
  })
  const call = async (id: string, name: string, input: unknown) => {
    const { message } = await kernel.runTurn({
      role: 'assistant',
      content: [{ type: 'tool_use', id, name, input }],
      stop_reason: 'tool_use',
    })
    return JSON.stringify(message.content[0]?.content)
  }
  const started = await call('bg', 'Bash', { command, run_in_background: true })
  const id = /shell (\S+?)[ .]/.exec(started)?.[1]
  // Each BashOutput returns only what is new, so what the command printed may come in an earlier
  // read than the one that sees it exit: keep every read. No count of polls: under load the
  // command may take seconds to exit; the test's timeout bounds the wait.
  let out = started
  for (let i = 0; id !== undefined && !out.includes('has exited'); i++) {
    out += await call(`read${i}`, 'BashOutput', { shell_id: id })
    if (!out.includes('has exited')) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  await kernel.close()
  return { started, out }
}

describe('background commands run in the same sandbox', () => {
  it('without a working bubblewrap a background command does not start (runs everywhere)', async () => {
    const place = makePlace()
    const { started } = await background(place, `touch ${place.out}/BG`, {
      sandbox: { mode: 'workspace-write' },
      ports: { sandbox: createBubblewrap({ program: '/nonexistent/tk/bwrap' }) },
    })
    expect(started).toMatch(/could not be started in the background.*bubblewrap/)
    expect(existsSync(join(place.out, 'BG'))).toBe(false)
  })

  it.skipIf(!bubblewrap)('a background command writes the workspace, not outside it (needs bubblewrap)', async () => {
    const place = makePlace()
    const { out } = await background(place, `touch in-bg; touch ${place.out}/BG`, {
      sandbox: { mode: 'workspace-write' },
    })
    expect(out).toMatch(/read-only file system/i)
    expect(existsSync(join(place.ws, 'in-bg'))).toBe(true)
    expect(existsSync(join(place.out, 'BG'))).toBe(false)
  })
})

describe('replay sees the sandbox a log was recorded with', () => {
  it('a log recorded with a sandbox replays without a divergence, its sandbox recorded again', async () => {
    const place = makePlace()
    const kernel = createKernel({
      tools: [noop],
      cwd: place.ws,
      sandbox: { mode: 'read-only', network: 'on', tools: { Noop: { mode: 'off' } } },
    })
    await kernel.runTurn({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Noop', input: {} }],
      stop_reason: 'tool_use',
    })
    const result = await replay(kernel.log.read(), { tools: [noop] })
    expect(result.ok, JSON.stringify(result)).toBe(true)
    if (result.ok)
      expect(result.log.find((e) => e.type === 'session.configured')).toMatchObject({
        sandbox: { mode: 'read-only', network: 'on', tools: { Noop: { mode: 'off' } } },
      })
  })
})
