/** Command hooks as real scripts in temp directories, and in-process hooks. */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  createKernel,
  type HooksConfig,
  type KernelEvent,
  type KernelOptions,
  type ToolResultBlock,
} from '../../src/index.js'
import { assistant, scratchDirs, testKernel } from '../helpers.js'
import { gone } from '../processes.js'

const scratchDir = scratchDirs()
const scratch = (): string => scratchDir('toolkernel-hooks-')
/** Writes an executable hook script and returns the command that runs it. */
function script(dir: string, name: string, body: string, executable = true): string {
  const path = join(dir, name)
  writeFileSync(path, `#!/usr/bin/env bash\n${body}\n`)
  if (executable) chmodSync(path, 0o755)
  return path
}

const seen: unknown[] = []
const Echo = buildTool({
  name: 'Echo',
  description: () => 'e',
  inputSchema: z.object({ text: z.string() }),
  isConcurrencySafe: () => true,
  async call(input) {
    seen.push(input)
    return `echo: ${input.text}`
  },
})
const Fail = buildTool({
  name: 'Fail',
  description: () => 'f',
  inputSchema: z.object({}),
  call: async () => {
    throw new Error('it broke')
  },
})

function kernelWith(hooks: HooksConfig, options: Partial<KernelOptions> = {}) {
  return testKernel([Echo, Fail], { hooks, cwd: scratch(), ...options })
}
const pre = (command: string, extra: { matcher?: string; timeout?: number } = {}): HooksConfig => ({
  PreToolUse: [
    {
      ...(extra.matcher !== undefined ? { matcher: extra.matcher } : {}),
      hooks: [{ type: 'command', command, ...(extra.timeout !== undefined ? { timeout: extra.timeout } : {}) }],
    },
  ],
})
const content = (block: ToolResultBlock | undefined) =>
  typeof block?.content === 'string' ? block.content : JSON.stringify(block?.content)
const hookEvents = (events: readonly KernelEvent[]) =>
  events.filter((e) => e.type === 'hook.finished') as Array<Extract<KernelEvent, { type: 'hook.finished' }>>

describe('command hooks: exit codes', () => {
  it('exit 2 blocks the call with stderr as the reason the model reads', async () => {
    const dir = scratch()
    const kernel = kernelWith(pre(script(dir, 'block.sh', 'echo "not on Fridays" >&2; exit 2')))
    const { message } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(content(message.content[0])).toBe(
      '<tool_use_error>A PreToolUse hook blocked this Echo call: not on Fridays</tool_use_error>',
    )
  })

  it('exit 2 with nothing on stderr still blocks, and says no reason was given', async () => {
    const kernel = kernelWith(pre(script(scratch(), 'b.sh', 'exit 2')))
    const { message } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(content(message.content[0])).toMatch(/a hook blocked this call \(exit code 2\) without saying why/)
  })

  it('other exit codes, a missing command and a script that is not executable are non-blocking errors reported in the log', async () => {
    const dir = scratch()
    const notExecutable = script(dir, 'noexec.sh', 'exit 0', false)
    const kernel = testKernel([Echo], {
      cwd: dir,
      hooks: {
        PreToolUse: [
          {
            hooks: [
              { type: 'command', command: script(dir, 'one.sh', 'echo oops >&2; exit 1') },
              { type: 'command', command: 'definitely-not-a-command-xyz' },
              { type: 'command', command: notExecutable },
            ],
          },
        ],
      },
    })
    const { message, events } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(content(message.content[0])).toBe('echo: x')
    const errors = hookEvents(events).map((e) => [e.outcome, e.exitCode, e.error])
    expect(errors).toEqual([
      ['error', 1, 'exited with code 1: oops; the call went on'],
      [
        'error',
        127,
        expect.stringMatching(/exited with code 127: .*definitely-not-a-command-xyz.*not found; the call went on$/),
      ],
      ['error', 126, expect.stringMatching(/exited with code 126: .*Permission denied; the call went on$/)],
    ])
    expect(events.find((e) => e.type === 'tool.hooked')).toMatchObject({
      systemMessages: [
        expect.stringMatching(/^hook error: PreToolUse\[0\]\.hooks\[0\]/),
        expect.any(String),
        expect.any(String),
      ],
    })
  })

  it('a function hook that overruns its timeout is told so through its signal', async () => {
    let told: (reason: unknown) => void = () => {}
    const aborted = new Promise((resolve) => (told = resolve))
    const kernel = kernelWith({
      PreToolUse: [
        {
          hooks: [
            {
              type: 'function',
              name: 'slow',
              timeout: 0.05,
              fn: (_input, { signal }) =>
                new Promise(() => signal.addEventListener('abort', () => told(signal.reason), { once: true })),
            },
          ],
        },
      ],
    })
    const { message } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(message.content).toHaveLength(1)
    expect(String(await aborted)).toMatch(/timed out after 0.05 s/)
  })

  it('a hook that hangs past its timeout is killed with its processes, and the call goes on', async () => {
    const dir = scratch()
    const pidFile = join(dir, 'pid')
    const kernel = kernelWith(pre(script(dir, 'hang.sh', `sleep 300 & echo $! > ${pidFile}; wait`), { timeout: 0.3 }))
    const { message, events } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(content(message.content[0])).toBe('echo: x')
    expect(hookEvents(events)[0]).toMatchObject({
      outcome: 'error',
      error: 'timed out after 0.3 s; its process group was killed; the call went on',
    })
    expect(events.find((e) => e.type === 'tool.hooked')).toMatchObject({
      systemMessages: [
        `hook error: PreToolUse[0].hooks[0] (${join(dir, 'hang.sh')}): timed out after 0.3 s; its process group was killed; the call went on`,
      ],
    })
    expect(await gone(Number(readFileSync(pidFile, 'utf8')))).toBe(true)
  })

  it('a hook whose setsid grandchild holds its output open still ends on time, and the grandchild is killed', async () => {
    const dir = scratch()
    const pidFile = join(dir, 'pid')
    const hang = script(dir, 'escape.sh', `setsid bash -c 'sleep 100' & echo $! > ${pidFile}; sleep 100`)
    const kernel = kernelWith(pre(hang, { timeout: 0.3 }))
    const { message, events } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(content(message.content[0])).toBe('echo: x')
    expect(hookEvents(events)[0]?.error).toBe(
      'timed out after 0.3 s; its process group was killed; 1 process that had left the group (setsid) was found and killed too; the call went on',
    )
    expect(await gone(Number(readFileSync(pidFile, 'utf8')))).toBe(true)
  }, 60_000)

  it('a hook that cannot be started blocks the call, saying why', async () => {
    seen.length = 0
    const missing = join(scratch(), 'gone')
    const kernel = kernelWith(pre('true'), { cwd: missing })
    const { message } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(seen).toEqual([])
    expect(content(message.content[0])).toMatch(
      new RegExp(
        `^<tool_use_error>A PreToolUse hook blocked this Echo call: the hook PreToolUse\\[0\\]\\.hooks\\[0\\] \\(true\\) could not be started \\(.*${missing}.*\\), so it could not check the call`,
      ),
    )
  })

  it('hides the host environment from hooks: only allowlisted variables reach them', async () => {
    const dir = scratch()
    process.env.TK_SECRET_TEST = 'x'
    try {
      const kernel = kernelWith(
        pre(script(dir, 'env.sh', `echo "[$TK_SECRET_TEST] \${PATH:+path}" > ${join(dir, 'env')}`)),
      )
      await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
      expect(readFileSync(join(dir, 'env'), 'utf8')).toBe('[] path\n')
    } finally {
      delete process.env.TK_SECRET_TEST
    }
  })

  it('a hook that writes megabytes is stopped and reported', async () => {
    const kernel = kernelWith(pre(script(scratch(), 'loud.sh', 'head -c 3000000 /dev/zero | tr "\\0" x; exit 2')))
    const { message, events } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(content(message.content[0])).toBe('echo: x')
    expect(hookEvents(events)[0]?.error).toMatch(/wrote more than 1048576 bytes of output and was stopped/)
  })
})

describe('command hooks: JSON on stdout', () => {
  const json = (value: unknown, exit = 0) =>
    script(scratch(), 'json.sh', `cat > /dev/null; echo '${JSON.stringify(value)}'; exit ${exit}`)

  it('is read on exit 0: a deny blocks, an allow allows', async () => {
    const denied = await kernelWith(
      pre(json({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'secrets in input' } })),
    ).runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(content(denied.message.content[0])).toMatch(/blocked this Echo call: secrets in input/)
    const allowed = await kernelWith(pre(json({ hookSpecificOutput: { permissionDecision: 'allow' } }))).runTurn(
      assistant(['a', 'Echo', { text: 'x' }]),
    )
    expect(content(allowed.message.content[0])).toBe('echo: x')
    expect(allowed.events.find((e) => e.type === 'tool.permitted')).toMatchObject({ behavior: 'allow', source: 'hook' })
  })

  it('does not win over exit 2: exit 2 blocks whatever stdout says', async () => {
    const allowing = script(
      scratch(),
      'allow2.sh',
      `echo '${JSON.stringify({ hookSpecificOutput: { permissionDecision: 'allow' } })}'; echo "no deploys today" >&2; exit 2`,
    )
    const { message } = await kernelWith(pre(allowing)).runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(content(message.content[0])).toBe(
      '<tool_use_error>A PreToolUse hook blocked this Echo call: no deploys today</tool_use_error>',
    )
  })

  it('is ignored on other exit codes: a JSON deny with exit 1 is a non-blocking error', async () => {
    const { message, events } = await kernelWith(
      pre(json({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'nope' } }, 1)),
    ).runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(content(message.content[0])).toBe('echo: x')
    expect(hookEvents(events)[0]).toMatchObject({ outcome: 'error', exitCode: 1 })
    expect(hookEvents(events)[0]?.decision).toBeUndefined()
  })

  it('rewrites input (validated again), adds context for the model, and carries messages for the user', async () => {
    seen.length = 0
    const kernel = kernelWith(
      pre(
        json({
          systemMessage: 'input tidied',
          hookSpecificOutput: { updatedInput: { text: 'tidy' }, additionalContext: 'The repo is frozen until Monday.' },
        }),
      ),
    )
    const { message, events } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'messy' }]))
    expect(seen).toEqual([{ text: 'tidy' }])
    expect(message.content[0]?.content).toEqual([
      { type: 'text', text: 'echo: tidy' },
      { type: 'text', text: 'Context from a hook:\nThe repo is frozen until Monday.' },
    ])
    expect(events.find((e) => e.type === 'tool.hooked')).toMatchObject({
      updatedInput: { text: 'tidy' },
      systemMessages: ['input tidied'],
    })
  })

  it('cannot smuggle a field the schema forbids', async () => {
    seen.length = 0
    const kernel = kernelWith(pre(json({ updatedInput: { text: 'x', admin: true } })))
    const { message } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(seen).toEqual([])
    expect(content(message.content[0])).toMatch(
      /A PreToolUse hook rewrote the input into one Echo does not accept, so the call did not run\. Invalid input for Echo:\n- unexpected field `admin`/,
    )
  })

  it('invalid JSON falls back to the exit code, with a note; unknown fields are ignored with a note; wrong types are an error', async () => {
    const bad = await kernelWith(pre(script(scratch(), 'bad.sh', "echo '{not json'; exit 0"))).runTurn(
      assistant(['a', 'Echo', { text: 'x' }]),
    )
    expect(content(bad.message.content[0])).toBe('echo: x')
    expect(hookEvents(bad.events)[0]).toMatchObject({
      outcome: 'continue',
      error: expect.stringMatching(/stdout is not valid JSON .* so its exit code decides/),
    })
    const unknown = await kernelWith(
      pre(json({ colour: 'red', hookSpecificOutput: { permissionDecision: 'allow' } })),
    ).runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(hookEvents(unknown.events)[0]).toMatchObject({
      outcome: 'continue',
      decision: 'allow',
      error: 'unknown fields ignored: colour',
    })
    const typed = await kernelWith(pre(json({ hookSpecificOutput: { permissionDecision: 'maybe' } }))).runTurn(
      assistant(['a', 'Echo', { text: 'x' }]),
    )
    expect(content(typed.message.content[0])).toBe('echo: x')
    expect(hookEvents(typed.events)[0]).toMatchObject({
      outcome: 'error',
      error: expect.stringMatching(/wrongly typed fields: .*permissionDecision/),
    })
  })
})

describe('what hooks receive', () => {
  it('gets the call as JSON on stdin (PreToolUse, PostToolUse, PostToolUseFailure), never in its command line', async () => {
    const dir = scratch()
    const record = (name: string) => script(dir, `${name}.sh`, `cat > ${join(dir, `${name}.json`)}`)
    const kernel = testKernel([Echo, Fail], {
      cwd: dir,
      permissions: { mode: 'acceptEdits' },
      hooks: {
        PreToolUse: [{ matcher: 'Echo', hooks: [{ type: 'command', command: record('pre') }] }],
        PostToolUse: [{ hooks: [{ type: 'command', command: record('post') }] }],
        PostToolUseFailure: [{ hooks: [{ type: 'command', command: record('failure') }] }],
      },
    })
    await kernel.runTurn(assistant(['a', 'Echo', { text: '"; touch pwned; echo "' }], ['f', 'Fail', {}]))
    const read = (name: string) => JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8'))
    expect(read('pre')).toEqual({
      session_id: 'session_1',
      cwd: dir,
      permission_mode: 'acceptEdits',
      hook_event_name: 'PreToolUse',
      tool_name: 'Echo',
      tool_input: { text: '"; touch pwned; echo "' },
      tool_use_id: 'a',
    })
    expect(read('post')).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_use_id: 'a',
      tool_response: 'echo: "; touch pwned; echo "',
    })
    expect(read('failure')).toMatchObject({
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'Fail',
      error: 'Fail failed: it broke',
      is_interrupt: false,
    })
    expect(existsSync(join(dir, 'pwned'))).toBe(false)
  })

  it('matchers: empty and * match all, A|B exact names, anything else a regex over the whole name; a bad regex fails at createKernel', async () => {
    const calls: string[] = []
    const note = (label: string) => ({
      type: 'function' as const,
      fn: (input: { tool_name: string }) => void calls.push(`${label}:${input.tool_name}`),
    })
    const kernel = testKernel([Echo, Fail], {
      hooks: {
        PreToolUse: [
          { matcher: '', hooks: [note('empty')] },
          { matcher: '*', hooks: [note('star')] },
          { matcher: 'Echo|Nope', hooks: [note('names')] },
          { matcher: 'E.ho', hooks: [note('regex')] },
          { matcher: 'Ech', hooks: [note('partial')] },
        ],
      },
    })
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }], ['b', 'Fail', {}]))
    expect(calls.sort()).toEqual(['empty:Echo', 'empty:Fail', 'names:Echo', 'regex:Echo', 'star:Echo', 'star:Fail'])
    expect(() =>
      createKernel({ tools: [Echo], hooks: { PreToolUse: [{ matcher: 'E(', hooks: [note('x')] }] } }),
    ).toThrow(/hook matcher "E\(" is not a valid regular expression/)
    expect(() =>
      createKernel({ tools: [Echo], hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: '' }] }] } as never }),
    ).toThrow(/a command hook needs a command/)
    expect(() => createKernel({ tools: [Echo], hooks: { BeforeEverything: [] } as never })).toThrow(
      /hooks configuration/,
    )
  })
})

describe('hooks fail closed before the call', () => {
  const throwingRunner = (phases: ReadonlyArray<'pre' | 'post'>) => ({
    has: (phase: 'pre' | 'post') => phases.includes(phase),
    run: async () => {
      throw new Error('the hook table is corrupt')
    },
  })

  it('a hook runner that fails before the call blocks it, naming the failure', async () => {
    seen.length = 0
    const kernel = testKernel([Echo], { ports: { hookRunner: throwingRunner(['pre']) } })
    const { message, events } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(seen).toEqual([])
    expect(content(message.content[0])).toBe(
      '<tool_use_error>A PreToolUse hook blocked this Echo call: the hook runner failed (the hook table is corrupt), so the hooks could not check the call and it did not run</tool_use_error>',
    )
    expect(events.find((e) => e.type === 'tool.hooked')).toMatchObject({ phase: 'pre', outcome: 'block' })
  })

  it('a hook runner that fails after the call is noted, and the result stands', async () => {
    const kernel = testKernel([Echo], { ports: { hookRunner: throwingRunner(['post']) } })
    const { message, events } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(content(message.content[0])).toBe('echo: x')
    expect(events.find((e) => e.type === 'tool.hooked')).toMatchObject({
      phase: 'post',
      systemMessages: ['hook error: the hook runner failed: the hook table is corrupt'],
    })
  })

  it('hook input that cannot be turned into JSON blocks the call (a BigInt, a 100,000-level nesting)', async () => {
    // Model input is plain JSON (and intake refuses deep nesting); a tool's schema can still
    // transform it into what JSON cannot carry.
    const Big = buildTool({
      name: 'Big',
      description: () => 'b',
      inputSchema: z.object({ n: z.number().transform((n) => BigInt(n)) }),
      call: async () => 'ran',
    })
    const nest = (depth: number): unknown => {
      let nested: unknown = 'bottom'
      for (let i = 0; i < depth; i++) nested = [nested]
      return nested
    }
    const Deep = buildTool({
      name: 'Deep',
      description: () => 'd',
      inputSchema: z.object({ depth: z.number().transform(nest) }),
      call: async () => 'ran',
    })
    const kernel = testKernel([Big, Deep], { cwd: scratch(), hooks: pre('cat > /dev/null') })
    const { message } = await kernel.runTurn(assistant(['a', 'Big', { n: 1 }], ['b', 'Deep', { depth: 100_000 }]))
    expect(message.content.map(content)).toEqual([
      expect.stringMatching(
        /^<tool_use_error>A PreToolUse hook blocked this Big call: the hook PreToolUse\[0\]\.hooks\[0\] \(cat > \/dev\/null\) could not be given the call as JSON \(.*BigInt.*\), so it could not check the call/,
      ),
      expect.stringMatching(
        /^<tool_use_error>A PreToolUse hook blocked this Deep call: .* could not be given the call as JSON \(RangeError: Maximum call stack size exceeded\)/,
      ),
    ])
  })
})

describe('in-process hooks', () => {
  it('speak the same protocol: a deny blocks, a throw is a non-blocking error, a slow one times out', async () => {
    const kernel = testKernel([Echo], {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Echo',
            hooks: [
              {
                type: 'function',
                name: 'guard',
                fn: (input) =>
                  (input.tool_input as { text: string }).text === 'no'
                    ? { hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'said no' } }
                    : undefined,
              },
            ],
          },
          {
            hooks: [
              {
                type: 'function',
                name: 'buggy',
                fn: () => {
                  throw new Error('hook bug')
                },
              },
              { type: 'function', name: 'slow', timeout: 0.05, fn: () => new Promise(() => {}) },
            ],
          },
        ],
      },
    })
    const { message, events } = await kernel.runTurn(
      assistant(['a', 'Echo', { text: 'no' }], ['b', 'Echo', { text: 'yes' }]),
    )
    expect(message.content.map(content)).toEqual([
      '<tool_use_error>A PreToolUse hook blocked this Echo call: said no</tool_use_error>',
      'echo: yes',
    ])
    expect(
      hookEvents(events)
        .filter((e) => e.toolUseId === 'b')
        .map((e) => [e.hook, e.outcome, e.error]),
    ).toEqual([
      ['PreToolUse[0].hooks[0] (guard)', 'continue', undefined],
      ['PreToolUse[1].hooks[0] (buggy)', 'error', 'threw: hook bug'],
      ['PreToolUse[1].hooks[1] (slow)', 'error', 'timed out after 0.05 s'],
    ])
  })

  it('an abort while a PostToolUse hook runs keeps the real result (and the call still has exactly one)', async () => {
    const controller = new AbortController()
    const kernel = testKernel([Echo], {
      hooks: {
        PostToolUse: [
          {
            hooks: [{ type: 'function', fn: () => (queueMicrotask(() => controller.abort()), new Promise(() => {})) }],
          },
        ],
      },
    })
    const { message, events } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]), {
      signal: controller.signal,
    })
    expect(message.content).toEqual([{ type: 'tool_result', tool_use_id: 'a', content: 'echo: x' }])
    expect(events.filter((e) => e.type === 'tool.result')).toHaveLength(1)
  })

  it('a PostToolUse objection becomes feedback for the model', async () => {
    const kernel = testKernel([Echo], {
      hooks: {
        PostToolUse: [
          {
            hooks: [
              { type: 'function', fn: () => ({ decision: 'block', reason: 'output mentions a secret; redact it' }) },
            ],
          },
        ],
      },
    })
    const { message } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(message.content[0]?.content).toEqual([
      { type: 'text', text: 'echo: x' },
      { type: 'text', text: 'Context from a hook:\noutput mentions a secret; redact it' },
    ])
  })
})
