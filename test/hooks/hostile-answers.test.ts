/**
 * Hook answers and matchers a hostile or careless hook can give (issue 30 item 2): what the runner
 * reads from them, recorded in hook.finished. The attack rows (test/attacks) check the effects.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, type HooksConfig, type KernelEvent } from '../../src/index.js'
import { compileMatcher } from '../../src/hooks/config.js'
import { MAX_HOOK_TEXT_CHARS } from '../../src/hooks/combine.js'
import { assistant, testKernel } from '../helpers.js'
import { gone } from '../processes.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tk-hostile-answers-'))
  dirs.push(dir)
  return dir
}

const Runs = buildTool({ name: 'Runs', description: () => 'r', inputSchema: z.object({}), call: async () => 'ran' })
const answer = (value: unknown, event: 'PreToolUse' | 'PostToolUse' = 'PreToolUse'): HooksConfig => ({
  [event]: [{ hooks: [{ type: 'function', fn: () => value as never }] }],
})
async function finished(hooks: HooksConfig) {
  const kernel = testKernel([Runs], { hooks, cwd: scratch() })
  const { events, message } = await kernel.runTurn(assistant(['t', 'Runs', {}]))
  const hook = events.find((e): e is KernelEvent & { type: 'hook.finished' } => e.type === 'hook.finished')
  return { hook, block: (message.content as { is_error?: boolean; content: unknown }[])[0] }
}

describe('one answer', () => {
  it('a hookSpecificOutput labelled for another event is ignored, and the record says so', async () => {
    const { hook } = await finished(
      answer({
        hookSpecificOutput: { hookEventName: 'PostToolUse', permissionDecision: 'deny', additionalContext: 'x' },
      }),
    )
    expect(hook?.decision).toBeUndefined()
    expect(hook?.additionalContext).toBeUndefined()
    expect(hook?.error).toMatch(/labelled for "PostToolUse", not PreToolUse, so it was ignored/)
  })

  it('an unlabelled hookSpecificOutput is still read', async () => {
    const { hook } = await finished(answer({ hookSpecificOutput: { permissionDecision: 'ask' } }))
    expect(hook?.decision).toBe('ask')
  })

  it('block beside allow blocks, with the block reason; ask beside approve asks', async () => {
    const blocked = await finished(
      answer({
        decision: 'block',
        reason: 'legacy says no',
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'allow',
          permissionDecisionReason: 'ok',
        },
      }),
    )
    expect(blocked.hook).toMatchObject({ outcome: 'block', decision: 'deny', reason: 'legacy says no' })
    expect(blocked.block?.is_error).toBe(true)
    const asked = await finished(
      answer({ decision: 'approve', hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask' } }),
    )
    expect(asked.hook?.decision).toBe('ask')
  })

  it('additionalContext and reasons past the cap are cut in the record too, with a note', async () => {
    const { hook } = await finished(answer({ additionalContext: 'c'.repeat(MAX_HOOK_TEXT_CHARS + 5) }, 'PostToolUse'))
    expect(hook?.additionalContext).toMatch(
      new RegExp(`\\[hook context cut: ${MAX_HOOK_TEXT_CHARS} of ${MAX_HOOK_TEXT_CHARS + 5} characters kept\\]$`),
    )
  })

  it('several hooks together stay under the cap too', async () => {
    const big = () => ({ additionalContext: 'd'.repeat(MAX_HOOK_TEXT_CHARS) })
    const kernel = testKernel([Runs], {
      cwd: scratch(),
      hooks: {
        PostToolUse: [
          {
            hooks: [
              { type: 'function', fn: big },
              { type: 'function', fn: big },
              { type: 'function', fn: big },
            ],
          },
        ],
      },
    })
    const { message } = await kernel.runTurn(assistant(['t', 'Runs', {}]))
    expect(JSON.stringify(message.content).length).toBeLessThan(MAX_HOOK_TEXT_CHARS + 1000)
  })
})

describe('matchers', () => {
  it('run in linear time: a backtracking pattern over a 64-character name answers at once', () => {
    expect(compileMatcher('(a|aa)+b')('a'.repeat(64))).toBe(false)
    expect(compileMatcher('(a+)+$')('a'.repeat(63) + '-')).toBe(false)
    expect(compileMatcher('mcp__.*__delete.*')('mcp__gh__delete_repo')).toBe(true)
  })

  it('a pattern the linear-time engine cannot run is refused at createKernel, naming the fix', () => {
    expect(() => testKernel([Runs], { hooks: { PreToolUse: [{ matcher: '(?!Runs).*', hooks: [] }] } })).toThrow(
      /hook matcher "\(\?!Runs\)\.\*" uses a feature toolkernel does not run .*lookaround or backreferences.*write it without them/,
    )
    expect(() => testKernel([Runs], { hooks: { PreToolUse: [{ matcher: '(R)\\1', hooks: [] }] } })).toThrow(
      /hook matcher/,
    )
  })
})

describe('a command hook that leaves a process behind', () => {
  it('the process left in its group is killed when the hook exits', async () => {
    const dir = scratch()
    const pidFile = join(dir, 'pid')
    const kernel = testKernel([Runs], {
      cwd: dir,
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: `sleep 300 & echo $! > ${pidFile}; exit 0` }] }] },
    })
    await kernel.runTurn(assistant(['t', 'Runs', {}]))
    const pid = Number(readFileSync(pidFile, 'utf8'))
    // The sweep sends SIGKILL when the shell exits, before the turn ends; the process is gone
    // once the signal is delivered, which a loaded machine may take a moment to do (a check at
    // once failed under load). Without the sweep it would live 300 s.
    expect(await gone(pid)).toBe(true)
  })
})
