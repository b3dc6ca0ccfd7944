/**
 * The bubblewrap sandbox under the process runner and command hooks, on real processes (issue 30
 * item 1). Each containment test has a control: the same command with the sandbox `off` does have
 * its effect here, so a test cannot pass for the wrong reason. Without bubblewrap these skip (see
 * test/programs.ts); the fail-closed tests run everywhere.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createBubblewrap, unsandboxed } from '../../src/adapters/bubblewrap.sandbox.js'
import { runHookProcess } from '../../src/adapters/hook-process.js'
import { createProcessRunner } from '../../src/adapters/process-runner.js'
import type { ProcessResult, SandboxMode, SandboxPolicy } from '../../src/ports/index.js'
import { bubblewrap } from '../programs.js'
import {
  killAll,
  listen,
  makePlace,
  marker,
  nodeConnect,
  processesWith,
  removePlaces,
  started,
  survivors,
  type Place,
} from './sandbox.fixtures.js'

afterAll(removePlaces)

const signal = new AbortController().signal
const scope = { protectedNames: ['.git', '.claude', '.vscode', '.idea'], protectedDirs: [] }
const policy = (mode: SandboxMode, more: Partial<SandboxPolicy> = {}): SandboxPolicy => ({
  mode,
  network: 'off',
  writable: [],
  ...more,
})

/** Runs `command` in `place.ws` with the runner, sandboxed by `sandboxPolicy` (mode 'off': none). */
async function run(place: Place, command: string, sandboxPolicy: SandboxPolicy): Promise<ProcessResult> {
  const sandbox =
    sandboxPolicy.mode === 'off' ? unsandboxed(sandboxPolicy) : createBubblewrap().create(sandboxPolicy, scope)
  return createProcessRunner({ sandbox }).run(command, { cwd: place.ws, timeoutMs: 20_000, signal })
}

describe.skipIf(!bubblewrap)('workspace-write (needs bubblewrap)', () => {
  const ww = policy('workspace-write')

  it.for([
    ['python3', (path: string) => `python3 -c "open('${path}', 'w').write('x')"`],
    ['node', (path: string) => `node -e "require('fs').writeFileSync('${path}', 'x')"`],
    ['bash', (path: string) => `printf x > '${path}'`],
  ] as const)('%s: a write inside the workspace lands, one outside fails', async ([, write]) => {
    const place = makePlace()
    const inside = await run(place, write(join(place.ws, 'in.txt')), ww)
    expect(inside.exitCode, inside.output).toBe(0)
    expect(readFileSync(join(place.ws, 'in.txt'), 'utf8')).toBe('x')
    const outside = await run(place, write(join(place.out, 'X')), ww)
    expect(outside.exitCode).not.toBe(0)
    expect(outside.output).toMatch(/read-only file system/i)
    expect(existsSync(join(place.out, 'X'))).toBe(false)
    // Control: without the sandbox the same command writes there.
    await run(place, write(join(place.out, 'X')), policy('off'))
    expect(existsSync(join(place.out, 'X'))).toBe(true)
  })

  it('.git/config cannot be written, nor a protected directory replaced', async () => {
    const place = makePlace()
    const config = join(place.ws, '.git', 'config')
    const before = readFileSync(config, 'utf8')
    const result = await run(
      place,
      `git config core.fsmonitor 'touch ${place.out}/X'; echo '[core] fsmonitor = x' >> .git/config; rm -rf .git; mv .git moved`,
      ww,
    )
    expect(result.output).toMatch(/read-only file system|could not lock|busy/i)
    expect(readFileSync(config, 'utf8')).toBe(before)
    // Control.
    await run(place, `echo '[core] fsmonitor = x' >> .git/config`, policy('off'))
    expect(readFileSync(config, 'utf8')).not.toBe(before)
  })

  it('the configured writable paths are writable; /tmp is private to the command', async () => {
    const place = makePlace()
    const result = await run(
      place,
      `echo x > ${place.out}/W && echo y > /tmp/tk-sandbox-private && cat /tmp/tk-sandbox-private`,
      policy('workspace-write', { writable: [place.out] }),
    )
    expect(result.exitCode, result.output).toBe(0)
    expect(readFileSync(join(place.out, 'W'), 'utf8')).toBe('x\n')
    expect(existsSync('/tmp/tk-sandbox-private')).toBe(false)
  })

  it('the network is unreachable unless it is on: a loopback server outside sees no connection', async () => {
    const place = makePlace()
    const server = await listen()
    try {
      const off = await run(place, nodeConnect(server.port), ww)
      expect(off.output).toMatch(/REFUSED/)
      expect(server.connections()).toBe(0)
      // Control: network 'on' reaches it.
      const on = await run(place, nodeConnect(server.port), policy('workspace-write', { network: 'on' }))
      expect(on.output).toMatch(/CONNECTED/)
      expect(server.connections()).toBe(1)
    } finally {
      await server.close()
    }
  })

  it.for([
    // The runner kills a setsid child it can still trace to the command even without a sandbox (the
    // background shells' tree kill), so this row has no control; the two below escape it.
    ['a setsid daemon', (m: string) => `setsid sleep ${m} >/dev/null 2>&1 </dev/null &`, false],
    [
      'a double fork out of the session',
      (m: string) => `(setsid sh -c 'sleep ${m}' >/dev/null 2>&1 </dev/null &) ; ${started(m)}`,
      true,
    ],
    [
      'a python daemon (fork, setsid, fork)',
      (m: string) =>
        `python3 -c "import os, sys
if os.fork(): sys.exit(0)
os.setsid()
if os.fork(): sys.exit(0)
fd = os.open('/dev/null', os.O_RDWR)
[os.dup2(fd, i) for i in (0, 1, 2)]
os.execvp('sleep', ['sleep', '${m}'])"; ${started(m)}`,
      true,
    ],
  ] as const)('%s is dead after the call', async ([, start, escapes]) => {
    const place = makePlace()
    const sandboxed = marker()
    const result = await run(place, start(sandboxed), ww)
    expect(result.exitCode, result.output).toBe(0)
    expect(await survivors(sandboxed)).toEqual([])
    if (!escapes) return
    // Control: without the sandbox it outlives the call (then this test kills it).
    const unsandboxedMarker = marker()
    try {
      await run(place, start(unsandboxedMarker), policy('off'))
      expect(processesWith(unsandboxedMarker).length).toBeGreaterThan(0)
    } finally {
      killAll(unsandboxedMarker)
    }
  })

  it('keeps the environment allowlist: a host variable not allowed is not seen inside', async () => {
    const place = makePlace()
    process.env.TK_SANDBOX_SECRET = 'tk-secret-1b7e'
    try {
      const result = await run(place, 'env', ww)
      expect(result.output).toMatch(/^PATH=/m)
      expect(result.output).not.toContain('tk-secret-1b7e')
    } finally {
      delete process.env.TK_SANDBOX_SECRET
    }
  })
})

describe.skipIf(!bubblewrap)('read-only (needs bubblewrap)', () => {
  it('cannot write the workspace, can read it', async () => {
    const place = makePlace()
    const result = await run(place, 'cat .git/config && echo x > in.txt', policy('read-only'))
    expect(result.output).toContain('bare = false')
    expect(result.output).toMatch(/read-only file system/i)
    expect(existsSync(join(place.ws, 'in.txt'))).toBe(false)
  })
})

describe.skipIf(!bubblewrap)('command hooks in the sandbox (needs bubblewrap)', () => {
  it('a hook cannot write outside the workspace, and its setsid daemon dies with it', async () => {
    const place = makePlace()
    const m = marker()
    const sandbox = createBubblewrap().create(policy('workspace-write'), scope)
    const result = await runHookProcess(`setsid sleep ${m} >/dev/null 2>&1 </dev/null & echo x > ${place.out}/X`, {
      cwd: place.ws,
      stdin: '{}',
      timeoutMs: 20_000,
      signal,
      sandbox,
    })
    expect(result.stderr).toMatch(/read-only file system/i)
    expect(existsSync(join(place.out, 'X'))).toBe(false)
    expect(await survivors(m)).toEqual([])
  })
})

describe('fail closed: a sandbox that cannot run runs nothing (runs everywhere)', () => {
  const missing = createBubblewrap({ program: '/nonexistent/tk/bwrap' })

  it('the runner does not start the command and says how to fix it', async () => {
    const place = makePlace()
    const sandbox = missing.create(policy('workspace-write'), scope)
    const result = await createProcessRunner({ sandbox }).run(`touch ${place.out}/X`, {
      cwd: place.ws,
      timeoutMs: 5000,
      signal,
    })
    expect(result.startError).toMatch(
      /bubblewrap \(bwrap\).*not found at \/nonexistent\/tk\/bwrap.*apt-get install bubblewrap/,
    )
    expect(result.startError).toContain("mode: 'off'")
    expect(existsSync(join(place.out, 'X'))).toBe(false)
  })

  it('a bwrap not on PATH is named as such', async () => {
    const sandbox = createBubblewrap({ env: { PATH: '/nonexistent-dir' } }).create(policy('read-only'), scope)
    expect(await sandbox.check()).toMatch(/bubblewrap \(bwrap\), which was not found on PATH: install it/)
  })

  it('a bwrap that cannot make its namespaces is refused with the fix (user namespaces)', async () => {
    // `false` stands for a bwrap the kernel refuses: it runs and fails.
    const sandbox = createBubblewrap({ program: '/bin/false' }).create(policy('read-only'), scope)
    expect(await sandbox.check()).toMatch(
      /could not create a sandbox on this machine.*enable unprivileged user namespaces/,
    )
  })

  it('the check runs once per provider and is shared by its sandboxes', async () => {
    const sandbox = missing.create(policy('read-only'), scope)
    const other = missing.create(policy('workspace-write'), scope)
    expect(sandbox.check()).toBe(other.check())
  })

  it('a command hook does not start', async () => {
    const place = makePlace()
    const result = await runHookProcess(`touch ${place.out}/X`, {
      cwd: place.ws,
      stdin: '{}',
      timeoutMs: 5000,
      signal,
      sandbox: missing.create(policy('workspace-write'), scope),
    })
    expect(result.startError).toMatch(/bubblewrap/)
    expect(existsSync(join(place.out, 'X'))).toBe(false)
  })

  it("mode 'off' needs nothing: the command runs", async () => {
    const place = makePlace()
    const sandbox = missing.create(policy('off'), scope)
    const result = await createProcessRunner({ sandbox }).run('echo ran', { cwd: place.ws, timeoutMs: 5000, signal })
    expect(result.output).toBe('ran\n')
  })
})
