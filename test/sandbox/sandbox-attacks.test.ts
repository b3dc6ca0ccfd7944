/**
 * The sandbox rows of the attack suite (issue 30 item 3): the escapes the shell analysis lists as
 * unseeable — `python -c`, `node -e`, `make`, git running programs named by `-c` or by the
 * repository's own config, `ssh`, writes outside the workspace, the network, daemons — each approved
 * (mode bypassPermissions) and run through a real kernel with `sandbox: { mode: 'workspace-write' }`.
 * A row passes when its effect is absent. Its control runs the same call through the same kernel
 * with the sandbox `off` and must show the effect, so a row cannot pass because the permission layer
 * (or a missing program) stopped it instead.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, it } from 'vitest'
import { Bash, createKernel, type SandboxMode } from '../../src/index.js'
import { bubblewrap } from '../programs.js'
import {
  killAll,
  listen,
  makePlace,
  marker,
  nodeConnect,
  processesWith,
  started,
  removePlaces,
  survivors,
  type Place,
} from './sandbox.fixtures.js'

afterAll(removePlaces)

interface Row {
  name: string
  /** Programs the row needs besides bash. */
  needs?: string[]
  /** Prepares the workspace (outside any sandbox). */
  setup?: (place: Place) => void
  /** The command the model sends; `{out}`, `{port}` and `{m}` are filled in. */
  command: string
  /** Runs after the call, outside the sandbox, as the user would (a later `git status`). */
  later?: (place: Place) => void
  /** Which effect it aims for. */
  effect: 'writes-outside' | 'connects' | 'survives'
}

const gitInit = (place: Place): void => {
  rmSync(join(place.ws, '.git'), { recursive: true, force: true })
  execFileSync('git', ['init', '-q'], { cwd: place.ws })
}
const gitStatus = (place: Place): void => void spawnSync('git', ['status'], { cwd: place.ws, stdio: 'ignore' })

const STARTED = started('{m}')

const ROWS: Row[] = [
  {
    name: 'python -c writes outside',
    needs: ['python3'],
    command: `python3 -c "open('{out}/X', 'w')"`,
    effect: 'writes-outside',
  },
  {
    name: 'node -e writes outside',
    command: `node -e "require('fs').writeFileSync('{out}/X', '')"`,
    effect: 'writes-outside',
  },
  { name: 'a plain redirect outside', command: 'echo x > {out}/X', effect: 'writes-outside' },
  {
    // As root, bwrap keeps every capability unless told otherwise: the read-only root could be remounted.
    name: 'remount / writable, then write outside',
    command:
      'mount -o remount,rw / 2>/dev/null; unshare -m sh -c "mount -o remount,rw /; touch {out}/X"; touch {out}/X',
    effect: 'writes-outside',
  },
  {
    name: 'make runs a recipe that writes outside',
    needs: ['make'],
    setup: (place) => writeFileSync(join(place.ws, 'Makefile'), `all:\n\ttouch ${place.out}/X\n`),
    command: 'make',
    effect: 'writes-outside',
  },
  {
    name: 'git -c core.fsmonitor runs a program',
    needs: ['git'],
    setup: gitInit,
    command: "git -c core.fsmonitor='touch {out}/X' status",
    effect: 'writes-outside',
  },
  {
    name: "git -c alias.x='!…' runs a program",
    needs: ['git'],
    setup: gitInit,
    command: "git -c alias.x='!touch {out}/X' x",
    effect: 'writes-outside',
  },
  {
    name: "the repository's own core.fsmonitor runs on git status",
    needs: ['git'],
    setup: (place) => {
      gitInit(place)
      execFileSync('git', ['config', 'core.fsmonitor', `touch ${place.out}/X`], { cwd: place.ws })
    },
    command: 'git status',
    effect: 'writes-outside',
  },
  {
    name: 'core.fsmonitor written by one command, run by the next git outside',
    needs: ['git'],
    setup: gitInit,
    command: "git config core.fsmonitor 'touch {out}/X'",
    later: gitStatus,
    effect: 'writes-outside',
  },
  {
    name: 'ssh runs its ProxyCommand',
    needs: ['ssh'],
    command: "ssh -F /dev/null -o BatchMode=yes -o ProxyCommand='touch {out}/X' tk-sandbox-host true",
    effect: 'writes-outside',
  },
  {
    name: 'ssh reaches a server',
    needs: ['ssh'],
    command:
      'ssh -F /dev/null -o BatchMode=yes -o ConnectTimeout=5 -o StrictHostKeyChecking=no -p {port} 127.0.0.1 true',
    effect: 'connects',
  },
  {
    name: 'node -e reaches a server',
    command: nodeConnect(0).replace('connect(0,', 'connect({port},'),
    effect: 'connects',
  },
  {
    name: 'curl reaches a server',
    needs: ['curl'],
    command: 'curl -s -m 5 http://127.0.0.1:{port}/',
    effect: 'connects',
  },
  { name: "bash's /dev/tcp reaches a server", command: 'exec 3<>/dev/tcp/127.0.0.1/{port}', effect: 'connects' },
  { name: 'a setsid daemon', command: `setsid sleep {m} >/dev/null 2>&1 </dev/null & ${STARTED}`, effect: 'survives' },
  {
    name: 'a nohup double fork',
    command: `(nohup setsid sh -c 'sleep {m}' >/dev/null 2>&1 </dev/null &) ; ${STARTED}`,
    effect: 'survives',
  },
]

const has = (program: string) => spawnSync('bash', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0

/** Runs the row's call through a kernel whose sandbox is `mode`; true when the effect happened. */
async function attack(row: Row, mode: SandboxMode): Promise<boolean> {
  const place = makePlace()
  row.setup?.(place)
  const server = await listen()
  const m = marker()
  const command = row.command
    .replaceAll('{out}', place.out)
    .replaceAll('{port}', String(server.port))
    .replaceAll('{m}', m)
  try {
    const kernel = createKernel({
      tools: [Bash],
      cwd: place.ws,
      permissions: { mode: 'bypassPermissions' },
      sandbox: { mode },
    })
    await kernel.runTurn({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_sandbox_1', name: 'Bash', input: { command, timeout: 20_000 } }],
      stop_reason: 'tool_use',
    })
    row.later?.(place)
    if (row.effect === 'writes-outside') return existsSync(join(place.out, 'X'))
    if (row.effect === 'connects') return server.connections() > 0
    // A survivor must still be there once the namespace has had time to be torn down.
    return mode === 'off' ? processesWith(m).length > 0 : (await survivors(m)).length > 0
  } finally {
    killAll(m)
    await server.close()
  }
}

describe.skipIf(!bubblewrap)('workspace-write contains what the analysis cannot see (needs bubblewrap)', () => {
  it.for(ROWS.map((row) => [row.name, row] as const))('%s', async ([, row], { expect, skip }) => {
    const missing = (row.needs ?? []).filter((program) => !has(program))
    if (missing.length > 0) skip(`needs ${missing.join(', ')}`)
    expect(await attack(row, 'off'), 'control: without the sandbox the attack has its effect').toBe(true)
    expect(await attack(row, 'workspace-write'), 'in the sandbox it has none').toBe(false)
  })
})
