/**
 * The session's context decided field by field (src/actors/turn/session-context.ts,
 * docs/session-context.md): what a change applies, what it drops and why — word for word — and
 * the session rebuilt from its `session.changed` events, over a real temp workspace.
 */
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { realDirectoryOf } from '../../../src/adapters/real-directory.js'
import { SAFE_BATCH_REASON, SessionContext } from '../../../src/actors/turn/session-context.js'
import type { KernelEvent } from '../../../src/index.js'
import type { ContextChange } from '../../../src/tools/context-change.js'
import { scratchDirs } from '../../helpers.js'

const scratch = scratchDirs()

/** A workspace with `sub/deeper`, reached through a symlink (`link`) as the kernel may be given it. */
function workspace(): { root: string; linked: string } {
  const base = realpathSync(scratch('tk-session-unit-'))
  const root = join(base, 'ws')
  mkdirSync(join(root, 'sub', 'deeper'), { recursive: true })
  symlinkSync(root, join(base, 'link'))
  return { root, linked: join(base, 'link') }
}

const session = (root: string, events: KernelEvent[] = []) =>
  new SessionContext({ workspace: root, mode: 'default', directory: realDirectoryOf }, events)

const alone = { turnId: 't1', toolUseId: 'c1', alone: true }
const change = (given: unknown) => given as ContextChange

describe('a change a call returns', () => {
  it('applies what changes something and records what was asked', () => {
    const { root } = workspace()
    const s = session(root)
    const event = s.fromTool(change({ cwd: 'sub', env: { A: '1' }, data: { k: { n: 1 } }, mode: 'plan' }), alone)
    expect(event).toStrictEqual({
      type: 'session.changed',
      turnId: 't1',
      source: 'tool',
      changedBy: 'c1',
      requested: { cwd: 'sub', env: { A: '1' }, data: { k: { n: 1 } }, mode: 'plan' },
      cwd: join(root, 'sub'),
      env: { A: '1' },
      data: { k: { n: 1 } },
      mode: 'plan',
      previousMode: 'default',
    })
    expect(s.view()).toMatchObject({
      cwd: join(root, 'sub'),
      env: { A: '1' },
      data: { k: { n: 1 } },
      mode: 'plan',
      modeBeforePlan: 'default',
    })
    // Asking for what already holds changes nothing: no event (an object value compared as JSON).
    expect(s.fromTool(change({ cwd: '.', env: { A: '1' }, data: { k: { n: 1 } }, mode: 'plan' }), alone)).toBe(
      undefined,
    )
    // Nor do empty entries, or an entry set to undefined (no JSON, nothing to keep: not refused).
    expect(s.fromTool(change({ env: {}, data: {} }), alone)).toBe(undefined)
    expect(s.fromTool(change({ data: { u: undefined } }), alone)).toBe(undefined)
    // Removing an entry that is not there changes nothing either; removing one that is does.
    expect(s.fromTool(change({ env: { B: null } }), alone)).toBe(undefined)
    expect(s.fromTool(change({ env: { A: null }, data: { k: null } }), alone)).toMatchObject({
      env: { A: null },
      data: { k: null },
    })
    expect(s.view()).toMatchObject({ env: {}, data: {} })
  })

  it('drops each bad field with its reason, and applies the rest', () => {
    const { root } = workspace()
    const s = session(root)
    const event = s.fromTool(
      change({
        cwd: '',
        env: { 'BAD NAME': 'x', N: 5, OK: 'y' },
        data: { f: () => 1, big: 10n, kept: 'yes' },
        mode: 'yolo',
      }),
      alone,
    )
    expect(event?.dropped).toStrictEqual([
      { field: 'cwd', reason: 'cwd must be a non-empty path' },
      { field: 'env.BAD NAME', reason: '"BAD NAME" is not an environment variable name' },
      { field: 'env.N', reason: 'the value of N is not a string or null' },
      { field: 'data.f', reason: 'the value of f is not JSON' },
      { field: 'data.big', reason: 'the value of big is not JSON' },
      { field: 'mode', reason: '"yolo" is not one of default, acceptEdits, plan, bypassPermissions, dontAsk' },
    ])
    expect(event).toMatchObject({ env: { OK: 'y' }, data: { kept: 'yes' } })
    expect(s.mode).toBe('default')
  })

  it.each([
    [null, [{ field: 'change', reason: 'not an object' }]],
    ['cd sub', [{ field: 'change', reason: 'not an object' }]],
    [{ env: ['A=1'] }, [{ field: 'env', reason: 'env must be an object of entries' }]],
    [{ env: null }, [{ field: 'env', reason: 'env must be an object of entries' }]],
    [{ data: 'x' }, [{ field: 'data', reason: 'data must be an object of entries' }]],
    [{ cwd: 7 }, [{ field: 'cwd', reason: 'cwd must be a non-empty path' }]],
  ])('%j is dropped whole, with why', (given, dropped) => {
    const { root } = workspace()
    expect(session(root).fromTool(change(given), alone)?.dropped).toStrictEqual(dropped)
  })

  it('a cwd that is not a directory, or outside the workspace, is refused; the directory stays', () => {
    const { root } = workspace()
    const s = session(root)
    expect(s.fromTool(change({ cwd: 'nope' }), alone)?.dropped).toStrictEqual([
      { field: 'cwd', reason: `nope is not an existing directory; the working directory stays ${root}` },
    ])
    expect(s.fromTool(change({ cwd: '..' }), alone)?.dropped).toStrictEqual([
      { field: 'cwd', reason: `.. is outside the workspace ${root}; the working directory stays ${root}` },
    ])
    expect(s.cwd).toBe(root)
    // Back to the workspace itself from below it: spelled as the workspace.
    s.fromTool(change({ cwd: 'sub/deeper' }), alone)
    expect(s.cwd).toBe(join(root, 'sub', 'deeper'))
    expect(s.fromTool(change({ cwd: '../..' }), alone)).toMatchObject({ cwd: root })
  })

  it('a workspace given through a symlink keeps its spelling: the cwd is under it, not under its target', () => {
    const { linked } = workspace()
    const s = session(linked)
    expect(s.fromTool(change({ cwd: 'sub' }), alone)).toMatchObject({ cwd: join(linked, 'sub') })
    expect(s.fromTool(change({ cwd: linked }), alone)).toMatchObject({ cwd: linked })
  })

  it('from a concurrency-safe batch: every field dropped with the one reason, nothing applied', () => {
    const { root } = workspace()
    const s = session(root)
    const event = s.fromTool(change({ cwd: 'sub', env: { 'BAD NAME': 'x', A: '1' }, mode: 'plan' }), {
      ...alone,
      alone: false,
    })
    expect(event?.dropped).toStrictEqual(
      ['cwd', 'env', 'mode', 'env.BAD NAME'].map((field) => ({ field, reason: SAFE_BATCH_REASON })),
    )
    expect(event).not.toHaveProperty('cwd')
    expect(s.view()).toMatchObject({ cwd: root, env: {}, mode: 'default' })
  })

  it('a change that cannot be written as JSON is recorded without `requested`', () => {
    const { root } = workspace()
    const circular: Record<string, unknown> = { env: { A: '1' } }
    circular.self = circular
    const event = session(root).fromTool(change(circular), alone)
    expect(event).not.toHaveProperty('requested')
    expect(event).toMatchObject({ env: { A: '1' } })
  })
})

describe('the view a call sees', () => {
  it('is one frozen snapshot until the next change', () => {
    const { root } = workspace()
    const s = session(root)
    const first = s.view()
    expect(s.view()).toBe(first)
    expect(Object.isFrozen(first)).toBe(true)
    s.fromTool(change({ env: { A: '1' } }), alone)
    expect(s.view()).not.toBe(first)
    expect(first.env).toStrictEqual({})
  })
})

describe('the app sets the mode', () => {
  it('in force at once, recorded with the next turn, remembered until then; the same mode is no change', () => {
    const { root } = workspace()
    const s = session(root)
    s.setMode('default')
    expect(s.pendingModes()).toEqual([])
    s.setMode('plan')
    s.setMode('acceptEdits')
    expect(s.mode).toBe('acceptEdits')
    expect(s.pendingModes()).toEqual(['plan', 'acceptEdits'])
    expect(s.takePending('t9')).toStrictEqual([
      { type: 'session.changed', turnId: 't9', source: 'app', mode: 'plan', previousMode: 'default' },
      { type: 'session.changed', turnId: 't9', source: 'app', mode: 'acceptEdits', previousMode: 'plan' },
    ])
    expect(s.pendingModes()).toEqual([])
    expect(() => s.setMode('yolo')).toThrow(
      'kernel.setMode: the mode must be one of default, acceptEdits, plan, bypassPermissions, dontAsk, got "yolo"',
    )
  })

  it('plan mode remembers the mode before it, once: plan again keeps it; leaving plan forgets it', () => {
    const { root } = workspace()
    const s = session(root)
    s.setMode('acceptEdits')
    s.setMode('plan')
    expect(s.view().modeBeforePlan).toBe('acceptEdits')
    s.fromTool(change({ mode: 'plan' }), alone)
    expect(s.view().modeBeforePlan).toBe('acceptEdits')
    s.setMode('default')
    expect(s.view().modeBeforePlan).toBe(undefined)
  })
})

describe('rebuilt from the log', () => {
  const at = { v: 2, at: 0 } as const
  const changed = (seq: number, fields: object) =>
    ({ ...at, seq, type: 'session.changed', turnId: 't', source: 'tool', ...fields }) as unknown as KernelEvent

  it('applies each recorded change again; a recorded cwd that is gone now leaves the cwd as it was', () => {
    const { root } = workspace()
    const events = [
      changed(0, { cwd: join(root, 'sub'), env: { A: '1', B: '2' }, data: { d: [1] } }),
      changed(1, { env: { B: null }, mode: 'plan', previousMode: 'default' }),
      changed(2, { cwd: join(root, 'gone') }),
      changed(3, { mode: 'not-a-mode' }),
      changed(4, { mode: 'plan', previousMode: 'plan', data: { d: null } }),
      { ...at, seq: 5, type: 'turn.started', turnId: 'u', mode: 'batch', maxConcurrency: 1 } as unknown as KernelEvent,
    ]
    const s = session(root, events)
    // Plan recorded again while in plan keeps the mode before plan; null removes an entry.
    expect(s.view()).toMatchObject({ cwd: join(root, 'sub'), mode: 'plan', modeBeforePlan: 'default' })
    expect(s.view().env).toStrictEqual({ A: '1' })
    expect(s.view().data).toStrictEqual({})
  })
})
