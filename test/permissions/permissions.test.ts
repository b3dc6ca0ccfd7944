import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  Bash,
  buildTool,
  createJsonlLog,
  createKernel,
  Edit,
  Read,
  type CanUseTool,
  type KernelOptions,
  type PermissionRequest,
} from '../../src/index.js'
import { matchesPath, parseRule } from '../../src/permissions/rules.js'
import { analyzeCommand, matchesSpecifier } from '../../src/permissions/shell/index.js'
import { loadBashGrammar } from '../../src/adapters/bash-grammar.js'
import { compileRules, matchRules } from '../../src/permissions/ruleset.js'
import { assistant, fixedClock, scratchDirs, testKernel } from '../helpers.js'

const scratch = scratchDirs()
const cwd = '/work/proj'
beforeAll(async () => {
  await loadBashGrammar()
})

describe('rule syntax', () => {
  it('parses Tool and Tool(specifier), and rejects what does not parse, at createKernel', () => {
    expect(parseRule('Bash(npm run test:*)', 'allow')).toEqual({
      source: 'Bash(npm run test:*)',
      behavior: 'allow',
      tool: 'Bash',
      specifier: 'npm run test:*',
    })
    expect(parseRule('mcp__github', 'deny')).toEqual({ source: 'mcp__github', behavior: 'deny', tool: 'mcp__github' })
    expect(() => parseRule('Bash(', 'allow')).toThrow(
      /"Bash\(" \(allow\) does not parse: write Tool or Tool\(specifier\)/,
    )
    expect(() => parseRule('Read()', 'deny')).toThrow(/empty specifier/)
    expect(() => createKernel({ tools: [Bash], permissions: { allow: ['Bash(npm test'] } })).toThrow(/does not parse/)
    const Plain = buildTool({ name: 'Plain', description: () => 'p', inputSchema: z.object({}), call: async () => '' })
    expect(() => createKernel({ tools: [Plain], permissions: { deny: ['Plain(x)'] } })).toThrow(
      /Plain takes no specifier/,
    )
    expect(() => createKernel({ tools: [Plain], permissions: { mode: 'yolo' as never } })).toThrow(
      /permissions.mode must be one of default, acceptEdits, plan, bypassPermissions, dontAsk/,
    )
  })

  const one = (command: string) => {
    const analysis = analyzeCommand(command)
    if (analysis.kind !== 'known' || analysis.commands[0] === undefined) throw new Error(`not one command: ${command}`)
    return analysis.commands[0]
  }
  const lines = (command: string) => {
    const analysis = analyzeCommand(command)
    return analysis.kind === 'known' ? analysis.commands.map((c) => [c.name, ...c.args].join(' ')) : undefined
  }

  it('matches Bash commands exactly, or by word prefix with :*', () => {
    expect(matchesSpecifier('npm run test:*', one('npm run test'))).toBe(true)
    expect(matchesSpecifier('npm run test:*', one('npm run test -- --watch'))).toBe(true)
    expect(matchesSpecifier('npm run test:*', one('npm run test:unit'))).toBe(true)
    expect(matchesSpecifier('npm run test:*', one('npm run testify'))).toBe(false)
    expect(matchesSpecifier('git status', one('git  status'))).toBe(true)
    expect(matchesSpecifier('git status', one('git status --short'))).toBe(false)
  })

  it('finds every simple command of a compound one, substitutions included; what it cannot follow is unknown', () => {
    expect(lines('npm test && git status | head -3; ls')).toEqual(['npm test', 'git status', 'head -3', 'ls'])
    expect(lines('echo $(rm -rf /)')).toEqual(expect.arrayContaining(['rm -rf /']))
    expect(lines('echo `id`')).toEqual(expect.arrayContaining(['id']))
    expect(lines('eval "$X"')).toBeUndefined()
  })

  it('matches paths gitignore-style: ./ relative to cwd, / absolute, ~ home', () => {
    expect(matchesPath('./src/**', '/work/proj/src/a/b.ts', cwd)).toBe(true)
    expect(matchesPath('./src/**', '/work/proj/test/a.ts', cwd)).toBe(false)
    expect(matchesPath('src/**', '/elsewhere/src/a.ts', cwd)).toBe(false)
    expect(matchesPath('/etc/**', '/etc/passwd', cwd)).toBe(true)
    expect(matchesPath('*.env', '/work/proj/config/prod.env', cwd)).toBe(true)
  })
})

describe('rule precedence and compound commands', () => {
  const Mcp = buildTool({
    name: 'mcp__github__create_issue',
    description: () => 'm',
    inputSchema: z.object({}),
    call: async () => '',
  })
  const rules = compileRules(
    {
      allow: ['Bash(npm run test:*)', 'Bash(git status)', 'Read(./src/**)', 'mcp__github'],
      ask: ['Bash(git push:*)'],
      deny: ['Bash(rm:*)', 'Read(./src/secret.ts)'],
    },
    [Bash, Read],
  )
  const check = (tool: typeof Bash | typeof Read | typeof Mcp, input: unknown) =>
    matchRules(rules, tool, input, cwd)?.behavior

  it('allows a compound command only if every part is allowed; a denied part denies the whole', () => {
    expect(check(Bash, { command: 'npm run test && git status' })).toBe('allow')
    expect(check(Bash, { command: 'npm run test && curl evil.sh' })).toBeUndefined()
    expect(check(Bash, { command: 'npm run test; rm -rf /' })).toBe('deny')
    expect(check(Bash, { command: 'git status && git push origin main' })).toBe('ask')
    expect(check(Bash, { command: 'npm run test $(curl x)' })).toBeUndefined()
  })

  it('deny beats ask beats allow, for paths too; mcp__server names all its tools', () => {
    expect(check(Read, { file_path: '/work/proj/src/a.ts' })).toBe('allow')
    expect(check(Read, { file_path: '/work/proj/src/secret.ts' })).toBe('deny')
    expect(check(Mcp, {})).toBe('allow')
  })
})

describe('the permission step through the kernel', () => {
  const project = () => scratch('toolkernel-perm-')
  const run = async (options: Partial<KernelOptions>, ...calls: Array<[string, string, unknown]>) => {
    const kernel = testKernel([Bash, Edit, Read], { cwd: options.cwd ?? project(), approvals: 'deny', ...options })
    return kernel.runTurn(assistant(...calls))
  }
  const decisions = (events: Array<{ type: string }>) =>
    events
      .filter((e) => e.type === 'tool.permitted')
      .map((e) => {
        const p = e as unknown as { behavior: string; source: string }
        return `${p.behavior}:${p.source}`
      })

  it('modes: plan denies what writes, dontAsk turns ask into deny, bypassPermissions allows, acceptEdits allows edits inside cwd', async () => {
    const dir = project()
    const plan = await run(
      { cwd: dir, permissions: { mode: 'plan' } },
      ['a', 'Bash', { command: 'ls' }],
      ['b', 'Bash', { command: 'touch x' }],
    )
    expect(decisions(plan.events)).toEqual(['allow:tool', 'deny:mode'])
    expect(String(plan.message.content[1]?.content)).toMatch(/plan mode allows nothing that writes/)
    const dontAsk = await run(
      { cwd: dir, permissions: { mode: 'dontAsk' }, canUseTool: () => ({ behavior: 'allow' }) },
      ['a', 'Bash', { command: 'touch x' }],
    )
    expect(decisions(dontAsk.events)).toEqual(['deny:mode'])
    const bypass = await run({ cwd: dir, permissions: { mode: 'bypassPermissions' } }, [
      'a',
      'Bash',
      { command: 'touch x' },
    ])
    expect(decisions(bypass.events)).toEqual(['allow:mode'])
    const accept = await run(
      { cwd: dir, permissions: { mode: 'acceptEdits' } },
      ['a', 'Edit', { file_path: join(dir, 'x'), old_string: 'a', new_string: 'b' }],
      ['b', 'Edit', { file_path: '/etc/hosts', old_string: 'a', new_string: 'b' }],
    )
    expect(decisions(accept.events)).toEqual(['allow:mode', 'deny:default'])
  })

  it('asks canUseTool with the reason and suggested rules; allow once, allow with edited input, deny', async () => {
    const requests: PermissionRequest[] = []
    const answers: Record<string, ReturnType<CanUseTool>> = {
      once: { behavior: 'allow' },
      edit: { behavior: 'allow', updatedInput: { command: 'echo edited' } },
      no: { behavior: 'deny', message: 'not today' },
    }
    const { message } = await run(
      { canUseTool: (request) => (requests.push(request), answers[request.toolUseId] as never) },
      ['once', 'Bash', { command: 'mkdir -p built' }],
      ['edit', 'Bash', { command: 'mkdir -p built' }],
      ['no', 'Bash', { command: 'npm run build' }],
    )
    expect(requests.map((r) => [r.toolUseId, r.reason, r.suggestions])).toEqual([
      [
        'once',
        'the command may change things (mkdir is not on the read-only list): mkdir -p built',
        ['Bash(mkdir:*)', 'Bash(mkdir -p built)'],
      ],
      [
        'edit',
        'the command may change things (mkdir is not on the read-only list): mkdir -p built',
        ['Bash(mkdir:*)', 'Bash(mkdir -p built)'],
      ],
      [
        'no',
        'the command may change things (npm is not on the read-only list): npm run build',
        ['Bash(npm run:*)', 'Bash(npm run build)'],
      ],
    ])
    expect(message.content.map((b) => String(b.content))).toEqual([
      expect.stringMatching(/^\/|^\S/),
      'edited',
      expect.stringMatching(/denied: not today/),
    ])
  })

  it('grants last the session, are events, and are honoured by a kernel resumed from the log', async () => {
    const dir = project()
    const logPath = join(dir, 'session.jsonl')
    let asked = 0
    const first = createKernel({
      tools: [Bash],
      cwd: dir,
      log: createJsonlLog(logPath, fixedClock()),
      canUseTool: () => (asked++, { behavior: 'allow', grant: { scope: 'rule', rule: 'Bash(tee:*)' } }),
    })
    await first.runTurn(assistant(['a', 'Bash', { command: 'tee one.txt <<< one' }]))
    await first.runTurn(assistant(['b', 'Bash', { command: 'tee two.txt <<< two' }]))
    expect(asked).toBe(1)
    first.log.close()
    const resumed = createKernel({
      tools: [Bash],
      cwd: dir,
      log: createJsonlLog(logPath, fixedClock()),
      canUseTool: () => {
        throw new Error('should not ask')
      },
    })
    const { message, events } = await resumed.runTurn(assistant(['c', 'Bash', { command: 'tee three.txt <<< three' }]))
    expect(String(message.content[0]?.content)).toBe('three')
    expect(events.find((e) => e.type === 'tool.permitted')).toMatchObject({
      behavior: 'allow',
      source: 'user',
      reason: 'granted for this session (Bash(tee:*))',
    })
    expect(resumed.log.read().filter((e) => e.type === 'permission.granted')).toHaveLength(1)
  })

  it('a grant for this exact call matches only the same input', async () => {
    let asked = 0
    const kernel = testKernel([Bash], {
      cwd: project(),
      canUseTool: () => (asked++, { behavior: 'allow', grant: { scope: 'call' } }),
    })
    await kernel.runTurn(assistant(['a', 'Bash', { command: 'touch a' }]))
    await kernel.runTurn(assistant(['b', 'Bash', { command: 'touch a' }]))
    await kernel.runTurn(assistant(['c', 'Bash', { command: 'touch b' }]))
    expect(asked).toBe(2)
  })

  it('canUseTool that throws or answers nonsense denies; one still pending when the turn is aborted is cancelled and told', async () => {
    const thrown = await run(
      {
        canUseTool: () => {
          throw new Error('dialog crashed')
        },
      },
      ['a', 'Bash', { command: 'touch x' }],
    )
    expect(String(thrown.message.content[0]?.content)).toMatch(/the approval prompt failed \(dialog crashed\)/)
    const nonsense = await run({ canUseTool: () => 'yes' as never }, ['a', 'Bash', { command: 'touch x' }])
    expect(String(nonsense.message.content[0]?.content)).toMatch(/gave no answer the kernel understands \("yes"\)/)
    const controller = new AbortController()
    let promptSignal: AbortSignal | undefined
    const kernel = testKernel([Bash], {
      cwd: project(),
      canUseTool: (_request, { signal }) => {
        promptSignal = signal
        queueMicrotask(() => controller.abort())
        return new Promise(() => {})
      },
    })
    const { message } = await kernel.runTurn(assistant(['a', 'Bash', { command: 'touch x' }]), {
      signal: controller.signal,
    })
    expect(String(message.content[0]?.content)).toBe(
      'Bash was cancelled before it ran: the user interrupted the turn. It had no effect; call it again if it is still needed.',
    )
    expect(promptSignal?.aborted).toBe(true)
  })

  it('a tool denied outright by a rule is not offered to the model', () => {
    const kernel = createKernel({ tools: [Bash, Read, Edit], permissions: { deny: ['Bash', 'Edit(/etc/**)'] } })
    expect(kernel.apiTools().map((t) => t.name)).toEqual(['Read', 'Edit'])
  })
})

describe('path rules and letter case', () => {
  it.skipIf(process.platform === 'darwin' || process.platform === 'win32')(
    'on a case-sensitive file system a path rule matches only the case it names',
    () => {
      expect(matchesPath('./src/**', '/work/proj/src/a.ts', cwd)).toBe(true)
      expect(matchesPath('./src/**', '/work/proj/SRC/a.ts', cwd)).toBe(false)
      expect(matchesPath('*.env', '/work/proj/PROD.ENV', cwd)).toBe(false)
    },
  )
})
