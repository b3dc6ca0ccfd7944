/**
 * The permission policy on its own, without a kernel: its precedence (deny > ask > allow), every
 * source's verdict and reason, what always asks, the preview for early start, and the app's
 * answers — including the ones the kernel cannot understand or keep.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Bash, buildTool, Edit, Read, Write } from '../../src/index.js'
import { loadBashGrammar } from '../../src/adapters/bash-grammar.js'
import type { KernelEventInput } from '../../src/events/event.schema.js'
import { fingerprint, Grants } from '../../src/permissions/grants.js'
import type { PathJudge } from '../../src/permissions/paths.js'
import {
  createPermissionPolicy,
  type CanUseTool,
  type PermissionAnswer,
  type PermissionMode,
  type PermissionRequest,
} from '../../src/permissions/policy.js'
import { compileRules, type RuleConfig } from '../../src/permissions/ruleset.js'
import type { PermissionResult, Tool, ToolContext } from '../../src/tools/tool.types.js'
import { installedShell } from '../helpers.js'

beforeAll(async () => {
  await loadBashGrammar()
})

const cwd = '/work/proj'
type Check = (input: unknown, context: ToolContext) => PermissionResult<unknown> | Promise<PermissionResult<unknown>>
/** A tool whose own check is `check` (allow by default when none is given). */
const checked = (check?: Check, readOnly?: (input: unknown) => boolean): Tool =>
  buildTool({
    name: 'Checked',
    description: () => 'a tool with its own check',
    inputSchema: z.object({ x: z.number().optional() }),
    call: async () => '',
    ...(check === undefined ? {} : { checkPermissions: check }),
    ...(readOnly === undefined ? {} : { isReadOnly: readOnly }),
  }) as Tool
const tools = [Bash, Read, Edit, Write, checked()]

let events: KernelEventInput[] = []
beforeEach(() => {
  events = []
})
interface Setup {
  config?: RuleConfig
  mode?: PermissionMode
  judge?: PathJudge
  canUseTool?: CanUseTool
  grants?: Grants
}
const policyOf = ({ config = {}, mode = 'default', judge, canUseTool, grants }: Setup = {}) =>
  createPermissionPolicy({
    rules: compileRules(config, tools, judge),
    mode,
    cwd,
    judge,
    grants: grants ?? new Grants(judge),
    canUseTool,
    record: (event) => events.push(event),
    shell: installedShell,
  })
const context = (): ToolContext => ({
  signal: new AbortController().signal,
  cwd,
  turnId: 't1',
  toolUseId: 'tu1',
  onProgress: () => {},
  ports: { shell: installedShell } as never,
  mayRead: () => true,
})
const decide = (
  setup: Setup,
  tool: Tool,
  input: unknown,
  hook?: Parameters<ReturnType<typeof policyOf>['decide']>[3],
) => Promise.resolve(policyOf(setup).decide(tool, input, context(), hook))
const allowAll: CanUseTool = () => ({ behavior: 'allow' })
/** An app that gives `answer` to every request and keeps the reason of each. */
const recordingApp = (answer: PermissionAnswer) => {
  const reasons: string[] = []
  const canUseTool: CanUseTool = (request) => {
    reasons.push(request.reason)
    return answer
  }
  return { reasons, canUseTool }
}
const judge: PathJudge = {
  cwd,
  realPath: (path) => (path === '/work/proj/out' ? '/etc/passwd' : path),
  protectedNames: ['.git'],
  protectedDirs: [],
}

describe('precedence and reasons', () => {
  it('denies by a deny rule before anything else, a hook and bypassPermissions included', async () => {
    expect(
      await decide(
        { config: { deny: ['Bash(rm:*)'] }, mode: 'bypassPermissions' },
        Bash,
        { command: 'rm x' },
        {
          decision: 'allow',
        },
      ),
    ).toEqual({ behavior: 'deny', source: 'rule', reason: 'the rule Bash(rm:*) denies it' })
  })

  it('allows everything else in bypassPermissions, an ask rule and a hook asking included', async () => {
    expect(
      await decide(
        { config: { ask: ['Bash(ls:*)'] }, mode: 'bypassPermissions' },
        Bash,
        { command: 'ls' },
        {
          decision: 'ask',
        },
      ),
    ).toEqual({ behavior: 'allow', source: 'mode', reason: 'bypassPermissions mode' })
  })

  it('asks by an ask rule, then by a hook (with its reason or a default one)', async () => {
    const { reasons: asked, canUseTool } = recordingApp({ behavior: 'allow' })
    await decide({ config: { ask: ['Bash(ls:*)'] }, canUseTool }, Bash, { command: 'ls' }, { decision: 'allow' })
    await decide({ canUseTool }, Bash, { command: 'ls' }, { decision: 'ask' })
    await decide({ canUseTool }, Bash, { command: 'ls' }, { decision: 'ask', reason: 'the hook wants a look' })
    expect(asked).toEqual(['the rule Bash(ls:*) asks first', 'a hook asks first', 'the hook wants a look'])
  })

  it('denies what writes in plan mode, a hook allowing included, and lets what reads through', async () => {
    const plan = 'plan mode allows nothing that writes; finish the plan and ask the user to leave plan mode'
    expect(
      await decide({ mode: 'plan' }, Write, { file_path: '/work/proj/a', content: '' }, { decision: 'allow' }),
    ).toEqual({ behavior: 'deny', source: 'mode', reason: plan })
    expect(await decide({ mode: 'plan' }, Read, { file_path: '/work/proj/a' })).toEqual({
      behavior: 'allow',
      source: 'tool',
    })
    // A tool that cannot say whether it writes is taken to write.
    const unsure = checked(undefined, () => {
      throw new Error('cannot tell')
    })
    expect(await decide({ mode: 'plan' }, unsure, {})).toEqual({ behavior: 'deny', source: 'mode', reason: plan })
  })

  it("allows by a hook's allow, with its reason only when it gave one", async () => {
    expect(await decide({}, Bash, { command: 'rm x' }, { decision: 'allow' })).toStrictEqual({
      behavior: 'allow',
      source: 'hook',
    })
    expect(await decide({}, Bash, { command: 'rm x' }, { decision: 'allow', reason: 'ci' })).toEqual({
      behavior: 'allow',
      source: 'hook',
      reason: 'ci',
    })
  })

  it('allows by a session grant before an allow rule, naming the grant', async () => {
    const grants = new Grants()
    grants.add({ tool: 'Bash', scope: 'rule', rule: 'Bash(ls:*)' })
    expect(await decide({ config: { allow: ['Bash(ls:*)'] }, grants }, Bash, { command: 'ls' })).toEqual({
      behavior: 'allow',
      source: 'user',
      reason: 'granted for this session (Bash(ls:*))',
    })
    const tool = new Grants()
    tool.add({ tool: 'Write', scope: 'tool' })
    expect(await decide({ grants: tool }, Write, { file_path: '/x', content: '' })).toEqual({
      behavior: 'allow',
      source: 'user',
      reason: 'granted for this session (tool)',
    })
  })

  it('allows by an allow rule, naming it', async () => {
    expect(await decide({ config: { allow: ['Bash(ls:*)'] } }, Bash, { command: 'ls -la' })).toEqual({
      behavior: 'allow',
      source: 'rule',
      reason: 'the rule Bash(ls:*) allows it',
    })
  })
})

describe('acceptEdits', () => {
  const accepted = {
    behavior: 'allow',
    source: 'mode',
    reason: 'acceptEdits mode allows edits inside the working directory',
  }
  const write = (file_path: string) => ({ file_path, content: '' })

  it('allows a change inside the working directory, as written (no judge) or where it points (judge)', async () => {
    expect(await decide({ mode: 'acceptEdits' }, Write, write('/work/proj/src/a.ts'))).toEqual(accepted)
    expect(await decide({ mode: 'acceptEdits', judge }, Write, write('/work/proj/src/a.ts'))).toEqual(accepted)
  })

  it('is the only mode that allows an edit inside the working directory by itself', async () => {
    expect(await decide({}, Write, write('/work/proj/src/a.ts'))).toEqual({
      behavior: 'deny',
      source: 'default',
      reason: 'Write needs approval (write /work/proj/src/a.ts) and this app has no way to ask the user',
    })
  })

  it('leaves to the tool a change outside it, to cwd itself, through a link out, or with no path', async () => {
    const asking = checked(() => ({ behavior: 'ask', message: 'the tool asks' }))
    const writing = { ...asking, getPath: (i: unknown) => (i as { file_path: string }).file_path }
    for (const [setup, input] of [
      [{ mode: 'acceptEdits' }, write('/etc/hosts')],
      [{ mode: 'acceptEdits' }, write('/work/proj')],
      [{ mode: 'acceptEdits', judge }, write('/work/proj/out')],
    ] as const) {
      expect(await decide(setup, writing, input)).toEqual({
        behavior: 'deny',
        source: 'default',
        reason: 'Checked needs approval (the tool asks) and this app has no way to ask the user',
      })
    }
    const noPath = checked(() => ({ behavior: 'deny', message: 'no path' }))
    expect(await decide({ mode: 'acceptEdits' }, noPath, {})).toEqual({
      behavior: 'deny',
      source: 'tool',
      reason: 'no path',
    })
  })

  it('does not count a read as an edit', async () => {
    const reading = {
      ...checked(
        () => ({ behavior: 'deny', message: 'the tool says no' }),
        () => true,
      ),
      getPath: () => '/work/proj/a.txt',
    }
    expect(await decide({ mode: 'acceptEdits' }, reading, {})).toEqual({
      behavior: 'deny',
      source: 'tool',
      reason: 'the tool says no',
    })
  })
})

describe("the tool's own check", () => {
  it('passes its allow on, with its updated input only when it gave one', async () => {
    expect(await decide({}, checked(), {})).toStrictEqual({ behavior: 'allow', source: 'tool' })
    expect(
      await decide(
        {},
        checked(() => ({ behavior: 'allow', updatedInput: { x: 2 } })),
        { x: 1 },
      ),
    ).toEqual({
      behavior: 'allow',
      source: 'tool',
      updatedInput: { x: 2 },
    })
    expect(
      await decide(
        {},
        checked(async () => ({ behavior: 'deny', message: 'async no' })),
        {},
      ),
    ).toEqual({
      behavior: 'deny',
      source: 'tool',
      reason: 'async no',
    })
  })

  it("asks the app with the tool's message, or a default one when the tool gave none", async () => {
    const { reasons: asked, canUseTool } = recordingApp({ behavior: 'allow' })
    await decide(
      { canUseTool },
      checked(() => ({ behavior: 'ask', message: 'sure?' })),
      {},
    )
    await decide(
      { canUseTool },
      checked(() => ({ behavior: 'ask' }) as never),
      {},
    )
    expect(asked).toEqual(['sure?', 'it needs approval'])
  })
})

describe('asking the app', () => {
  const ask = checked(() => ({ behavior: 'ask', message: 'sure?' }))

  it('denies in dontAsk mode and without canUseTool, saying why', async () => {
    expect(await decide({ mode: 'dontAsk', canUseTool: allowAll }, ask, {})).toEqual({
      behavior: 'deny',
      source: 'mode',
      reason: 'dontAsk mode turns every "ask" into a denial (sure?)',
    })
    expect(await decide({}, ask, {})).toEqual({
      behavior: 'deny',
      source: 'default',
      reason: 'Checked needs approval (sure?) and this app has no way to ask the user',
    })
    expect(events).toEqual([])
  })

  it('records the request and hands the app the call, its reason, suggestions and the signal', async () => {
    const seen: [PermissionRequest, AbortSignal][] = []
    const canUseTool: CanUseTool = (request, { signal }) => {
      seen.push([request, signal])
      return { behavior: 'deny', message: 'not today' }
    }
    const ctx = context()
    const verdict = await policyOf({ config: { ask: ['Bash(git push:*)'] }, canUseTool }).decide(
      Bash,
      { command: 'git push' },
      ctx,
    )
    expect(verdict).toEqual({ behavior: 'deny', source: 'user', reason: 'not today' })
    const suggestions = ['Bash(git push:*)', 'Bash(git push)']
    const reason = 'the rule Bash(git push:*) asks first'
    expect(seen).toEqual([
      [
        {
          tool: 'Bash',
          toolUseId: 'tu1',
          input: { command: 'git push' },
          reason,
          suggestions,
          // What the call says about itself, for the prompt (decision 141).
          flags: {
            readOnly: false,
            destructive: true,
            openWorld: false,
            userFacingName: 'Bash',
            activity: 'Running git push',
          },
        },
        ctx.signal,
      ],
    ])
    expect(events).toEqual([
      { type: 'permission.requested', turnId: 't1', toolUseId: 'tu1', tool: 'Bash', reason, suggestions },
    ])
  })

  it('denies when the prompt fails or answers something the kernel does not understand', async () => {
    const failing: CanUseTool = () => {
      throw new TypeError('prompt closed')
    }
    expect(await decide({ canUseTool: failing }, ask, {})).toEqual({
      behavior: 'deny',
      source: 'user',
      reason: 'the approval prompt failed (TypeError: prompt closed)',
    })
    for (const answer of [null, 'yes', 1, {}, { behavior: 'maybe' }]) {
      expect(await decide({ canUseTool: () => answer as never }, ask, {})).toEqual({
        behavior: 'deny',
        source: 'user',
        reason: `the approval prompt gave no answer the kernel understands (${JSON.stringify(answer)})`,
      })
    }
  })

  it("allows with the app's edited input only when it gave one", async () => {
    expect(await decide({ canUseTool: allowAll }, ask, {})).toStrictEqual({ behavior: 'allow', source: 'user' })
    expect(await decide({ canUseTool: () => ({ behavior: 'allow', updatedInput: { x: 3 } }) }, ask, {})).toEqual({
      behavior: 'allow',
      source: 'user',
      updatedInput: { x: 3 },
    })
  })

  it("keeps and records the app's grant, each scope with what it needs", async () => {
    const grants = new Grants()
    const input = { command: 'git push origin' }
    const answers = [{ scope: 'call' }, { scope: 'tool' }, { scope: 'rule', rule: 'Bash(git push:*)' }] as const
    for (const grant of answers) {
      const canUseTool: CanUseTool = () => ({ behavior: 'allow', grant })
      const verdict = await decide({ config: { ask: ['Bash(git:*)'] }, canUseTool, grants }, Bash, input)
      expect(verdict).toEqual({ behavior: 'allow', source: 'user' })
    }
    const ids = { turnId: 't1', toolUseId: 'tu1' }
    expect(events.filter((e) => e.type === 'permission.granted')).toStrictEqual([
      { type: 'permission.granted', ...ids, tool: 'Bash', scope: 'call', fingerprint: fingerprint('Bash', input) },
      { type: 'permission.granted', ...ids, tool: 'Bash', scope: 'tool' },
      { type: 'permission.granted', ...ids, tool: 'Bash', scope: 'rule', rule: 'Bash(git push:*)' },
    ])
    expect(grants.find(Bash, input, cwd)?.scope).toBe('call')
  })

  it('denies the call when the grant cannot be kept, and records no grant', async () => {
    const canUseTool: CanUseTool = () => ({ behavior: 'allow', grant: { scope: 'rule', rule: 'Bash(' } })
    const verdict = await decide({ canUseTool }, ask, {})
    expect(verdict.behavior).toBe('deny')
    expect(verdict.source).toBe('user')
    expect(verdict.reason).toMatch(
      /^the grant could not be recorded \(permission rule "Bash\(" \(allow\) does not parse/,
    )
    expect(events.map((e) => e.type)).toEqual(['permission.requested'])
  })
})

describe('what always asks', () => {
  it('asks for a change to a protected path in every mode, and not for a read of it or without a judge', async () => {
    const write = { file_path: '/work/proj/.git/config', content: '' }
    const reason = '/work/proj/.git/config is inside .git, which is protected: changes there always ask first'
    const { reasons: seen, canUseTool } = recordingApp({ behavior: 'deny', message: 'no' })
    await decide({ mode: 'bypassPermissions', judge, canUseTool }, Write, write)
    expect(seen).toEqual([reason])
    expect(await decide({ mode: 'bypassPermissions', judge }, Read, { file_path: write.file_path })).toEqual({
      behavior: 'allow',
      source: 'mode',
      reason: 'bypassPermissions mode',
    })
    expect((await decide({ mode: 'bypassPermissions' }, Write, write)).behavior).toBe('allow')
  })

  it('asks for a shell redirection that writes a protected path, with a judge only', async () => {
    const { reasons: seen, canUseTool } = recordingApp({ behavior: 'deny', message: 'no' })
    await decide({ mode: 'bypassPermissions', judge, canUseTool }, Bash, { command: 'echo x > .git/hooks/pre-commit' })
    // Every redirection counts, not only the first.
    await decide({ mode: 'bypassPermissions', judge, canUseTool }, Bash, { command: 'echo a > a.txt; echo b > .git/b' })
    expect(seen).toEqual([
      '.git/hooks/pre-commit is inside .git, which is protected: changes there always ask first',
      '.git/b is inside .git, which is protected: changes there always ask first',
    ])
    for (const [setup, command] of [
      [{ mode: 'bypassPermissions', judge }, 'cat < .git/config'],
      [{ mode: 'bypassPermissions', judge }, 'echo x > notes.txt'],
      [{ mode: 'bypassPermissions' }, 'echo x > .git/hooks/pre-commit'],
      // Not followed fully, and no rule restricts Bash: bypassPermissions runs it.
      [{ mode: 'bypassPermissions', judge }, 'eval "$CMD"'],
    ] as const) {
      expect((await decide(setup, Bash, { command })).behavior).toBe('allow')
    }
  })

  it('asks for a command it cannot follow only while deny or ask rules with a specifier restrict the tool', async () => {
    const hidden = { command: 'eval "$CMD"' }
    const { reasons: seen, canUseTool } = recordingApp({ behavior: 'deny', message: 'no' })
    await decide({ config: { deny: ['Bash(rm:*)'] }, mode: 'bypassPermissions', canUseTool }, Bash, hidden)
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatch(/^the command cannot be analysed fully \(.+\), and rules restrict what Bash may run$/)
    for (const config of [{}, { deny: ['Write(./x)'] }, { ask: ['Edit'] }, { allow: ['Bash(ls:*)'] }]) {
      expect((await decide({ config, mode: 'bypassPermissions' }, Bash, hidden)).behavior).toBe('allow')
    }
    // A rule naming the whole tool asks by itself, with its own reason.
    await decide({ config: { ask: ['Bash'] }, canUseTool }, Bash, hidden)
    expect(seen[1]).toBe('the rule Bash asks first')
  })
})

describe('preview', () => {
  it('says what decide will say when nothing needs running or asking, and unknown otherwise', () => {
    const policy = policyOf({ config: { deny: ['Bash(rm:*)'], ask: ['Bash(git push:*)'] } })
    expect(policy.preview(Bash, { command: 'rm x' })).toBe('deny')
    expect(policy.preview(Bash, { command: 'git push' })).toBe('ask')
    expect(policy.preview(checked(), {})).toBe('allow')
    expect(
      policy.preview(
        checked(() => ({ behavior: 'deny', message: 'no' })),
        {},
      ),
    ).toBe('deny')
    expect(
      policy.preview(
        checked(() => ({ behavior: 'ask', message: '?' })),
        {},
      ),
    ).toBe('ask')
    expect(
      policy.preview(
        checked(() => ({ behavior: 'allow' })),
        {},
      ),
    ).toBe('allow')
    expect(
      policy.preview(
        checked(async () => ({ behavior: 'allow' })),
        {},
      ),
    ).toBe('unknown')
    // A rejected asynchronous check is left to the step: nothing escapes from the preview.
    expect(
      policy.preview(
        checked(() => Promise.reject(new Error('later'))),
        {},
      ),
    ).toBe('unknown')
    const throwing = checked(() => {
      throw new Error('now')
    })
    expect(policy.preview(throwing, {})).toBe('unknown')
  })

  it("runs the tool's check with a context of its own: the kernel's cwd, no ids, reads judged by the rules", () => {
    const seen: ToolContext[] = []
    const tool = checked((_input, ctx) => {
      seen.push(ctx)
      return { behavior: 'allow' }
    })
    const policy = policyOf({ config: { deny: ['Read(./secrets/**)'] } })
    policy.preview(tool, {})
    policy.preview(tool, {})
    const [ctx] = seen
    expect(ctx).toMatchObject({ cwd, turnId: '', toolUseId: '' })
    expect(ctx?.signal.aborted).toBe(false)
    expect(ctx?.mayRead('/work/proj/secrets/key')).toBe(false)
    expect(ctx?.mayRead('/work/proj/src/a.ts')).toBe(true)
    expect(() => ctx?.onProgress({ message: 'x' } as never)).not.toThrow()
    expect(seen[1]).toBe(ctx)
    expect(policy.mayRead('/work/proj/secrets/key')).toBe(false)
  })
})

// Each rule with a path resolved the path (and the working directory) with realPath again: a
// system call per rule per call. One decision resolves each path once, however many rules look.
describe('one decision resolves each path once', () => {
  it('many path rules, protected checks and acceptEdits: realPath once per distinct path', async () => {
    const resolved: string[] = []
    const counting: PathJudge = { ...judge, realPath: (path) => (resolved.push(path), judge.realPath(path)) }
    const config = {
      deny: ['Write(./a/**)', 'Write(./b/**)', 'Write(./c/**)'],
      ask: ['Write(./d/**)', 'Write(./e/**)'],
      allow: ['Write(./f/**)', 'Write(./g/**)'],
    }
    const verdict = await decide({ config, mode: 'acceptEdits', judge: counting }, Write, {
      file_path: '/work/proj/src/x.ts',
      content: '',
    })
    expect(verdict).toMatchObject({ behavior: 'allow', source: 'mode' })
    expect(resolved.length).toBeGreaterThan(0)
    expect(resolved.filter((path, i) => resolved.indexOf(path) !== i)).toEqual([])
  })

  it('mayRead (a search asks it per file): each Read rule looks, the file and cwd are resolved once', () => {
    const resolved: string[] = []
    const counting: PathJudge = { ...judge, realPath: (path) => (resolved.push(path), judge.realPath(path)) }
    const policy = policyOf({ config: { deny: ['Read(./a/**)', 'Read(./b/**)', 'Read(./c/**)'] }, judge: counting })
    expect(policy.mayRead('/work/proj/src/x.ts')).toBe(true)
    expect(policy.mayRead('/work/proj/b/y')).toBe(false)
    expect(resolved.filter((path) => path === '/work/proj/src/x.ts')).toHaveLength(1)
    expect(resolved.filter((path) => path === cwd)).toHaveLength(2)
  })

  it('a path that cannot be resolved is tried once too, and still judged as unresolvable', async () => {
    let tries = 0
    const broken: PathJudge = {
      ...judge,
      realPath: (path) => {
        if (path !== '/work/proj/gone/x') return path
        tries++
        throw new Error('ENOENT')
      },
    }
    // an allow rule needs the path as written and where it points: unresolvable, none allows it
    const config = { allow: ['Write(./a/**)', 'Write(./b/**)', 'Write(./gone/**)'] }
    const verdict = await decide({ config, judge: broken }, Write, { file_path: '/work/proj/gone/x', content: '' })
    expect(verdict).toMatchObject({ behavior: 'deny', source: 'default' })
    expect(tries).toBe(1)
  })
})
