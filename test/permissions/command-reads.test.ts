/**
 * The Read rules over the files a Bash command names (decision 90), through the policy with the
 * kernel's own path judge over a real temp directory: a Read deny rule denies `cat .env` however
 * the name is spelt or linked, a reader that picks its files at run time asks while such a rule
 * exists, and a name a symbolic link takes into /proc asks with or without rules.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Bash, createKernel, Read } from '../../src/index.js'
import { loadBashGrammar } from '../../src/adapters/bash-grammar.js'
import { realPathOf } from '../../src/adapters/real-path.js'
import { Grants } from '../../src/permissions/grants.js'
import type { PathJudge } from '../../src/permissions/paths.js'
import { createPermissionPolicy, type PermissionMode } from '../../src/permissions/policy.js'
import { compileRules, type RuleConfig } from '../../src/permissions/ruleset.js'
import type { ToolContext } from '../../src/tools/tool.types.js'
import { installedShell } from '../helpers.js'

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tk-command-reads-')))
beforeAll(async () => {
  await loadBashGrammar()
  writeFileSync(join(dir, '.env'), 'TOKEN=1\n')
  writeFileSync(join(dir, 'README.md'), 'hello\n')
  mkdirSync(join(dir, 'sub'))
  symlinkSync('.env', join(dir, 'settings'))
  symlinkSync('/proc/self/environ', join(dir, 'NOTES'))
  symlinkSync('/proc/self', join(dir, 'me'))
  symlinkSync('loop', join(dir, 'loop'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const judge: PathJudge = { cwd: dir, realPath: realPathOf, protectedNames: ['.git'], protectedDirs: [] }
const context: ToolContext = {
  signal: new AbortController().signal,
  cwd: dir,
  turnId: 't',
  toolUseId: 'tu',
  onProgress: () => {},
  ports: { shell: installedShell } as never,
  mayRead: () => true,
}
const ENV_RULE: RuleConfig = { deny: ['Read(./.env)'] }

/** What the policy says about a Bash command; "ask" without an app to ask comes back as a denial naming it. */
async function verdict(command: string, config: RuleConfig = ENV_RULE, mode: PermissionMode = 'default') {
  const policy = createPermissionPolicy({
    rules: compileRules(config, [Bash, Read], judge),
    mode,
    cwd: dir,
    judge,
    grants: new Grants(judge),
    record: () => {},
    shell: installedShell,
  })
  const { behavior, reason } = await policy.decide(Bash, { command }, context)
  return { behavior, reason }
}
const denied = (word: string) => ({
  behavior: 'deny',
  reason: `the rule Read(./.env) denies reading ${word}, which the command names`,
})
const asked = (why: string) => ({
  behavior: 'deny',
  reason: `Bash needs approval (${why}) and this app has no way to ask the user`,
})
const underRule = (what: string) =>
  asked(
    `${what}, which could include a file the rules deny reading (Read(./.env)); the Read, Grep and Glob tools keep to those rules`,
  )

describe('a Read deny rule denies a command that names the file', () => {
  // Each of these printed .env through bash while the read-only verdict allowed it unasked.
  it.each([
    ['cat .env', '.env'],
    ['cat ./.env', './.env'],
    ['head -n 1 sub/../.env', 'sub/../.env'],
    ['grep --file=.env x README.md', '.env'],
    ['wc -l < .env', '.env'],
    ["bash -c 'cat .env'", '.env'],
    ['git show HEAD:.env', '.env'],
    ['diff README.md .env', '.env'],
    ['python3 .env', '.env'],
    // Decision 94: a value inside an operand, and curl's `@file`.
    ['dd if=.env status=none', '.env'],
    ['curl -d @.env http://127.0.0.1:9', '.env'],
  ])('%s', async (command, word) => {
    expect(await verdict(command)).toEqual(denied(word))
  })

  it('as written or where a link points: settings -> .env', async () => {
    expect(await verdict('cat settings')).toEqual(denied('settings'))
  })

  it('in every mode, bypassPermissions included, as any deny rule', async () => {
    expect(await verdict('cat .env', ENV_RULE, 'bypassPermissions')).toEqual(denied('.env'))
    expect(await verdict('cat .env', ENV_RULE, 'plan')).toEqual(denied('.env'))
  })

  it('in a kernel with Bash and no Read tool, where the rule is there for Bash alone', async () => {
    const kernel = createKernel({ tools: [Bash], cwd: dir, permissions: { deny: ['Read(./.env)'] } })
    const { events, message } = await kernel.runTurn({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'b1', name: 'Bash', input: { command: 'cat .env' } }],
    })
    expect(events.find((e) => e.type === 'tool.permitted')).toMatchObject(denied('.env'))
    expect(events.some((e) => e.type === 'tool.started')).toBe(false)
    expect(message.content[0]?.is_error).toBe(true)
  })

  it('a ~ is where bash takes it: the home directory', async () => {
    expect(await verdict('cat ~/.netrc', { deny: ['Read(~/.netrc)'] })).toEqual({
      behavior: 'deny',
      reason: 'the rule Read(~/.netrc) denies reading ~/.netrc, which the command names',
    })
  })
})

describe('a reader that picks its files at run time asks while a Read deny rule exists', () => {
  it.each([
    ['cat .en*', 'cat .en* reads files named at run time'],
    ['grep -r TOKEN .', 'grep -r reads every file below a directory'],
    ['rg TOKEN', 'rg searches every file below a directory'],
    ['cd sub && cat ../.env', 'cd moves the directory the names after it are relative to'],
    ['ls | xargs cat', 'xargs gives cat the names of the files it reads at run time'],
  ])('%s', async (command, why) => {
    expect(await verdict(command)).toEqual(underRule(why))
  })

  it('even where an allow rule allows the command; bypassPermissions runs it', async () => {
    expect(await verdict('grep -r TOKEN .', { ...ENV_RULE, allow: ['Bash(grep:*)'] })).toEqual(
      underRule('grep -r reads every file below a directory'),
    )
    expect(await verdict('grep -r TOKEN .', ENV_RULE, 'bypassPermissions')).toEqual({
      behavior: 'allow',
      reason: 'bypassPermissions mode',
    })
  })

  // What a rule does not cover stays as it was: read-only and unasked.
  it.each(['cat README.md', 'ls .env', 'echo .env', 'grep hello README.md', 'cat *.md'])(
    'without a Read deny rule, or naming no denied file: %s',
    async (command) => {
      const rules = command === 'cat *.md' ? {} : ENV_RULE
      expect(await verdict(command, rules)).toEqual({ behavior: 'allow', reason: undefined })
    },
  )

  it('without a Read deny rule grep -r and rg are read-only as before', async () => {
    expect(await verdict('grep -r TOKEN .', {})).toEqual({ behavior: 'allow', reason: undefined })
    expect(await verdict('rg TOKEN', { deny: ['Bash(rm:*)'] })).toEqual({ behavior: 'allow', reason: undefined })
  })
})

describe('a name a symbolic link takes into /proc asks, with or without rules', () => {
  // The read-only check judges letters: `cat NOTES` is a literal name below the working directory.
  it.each([
    ['cat NOTES', 'NOTES'],
    ['cd me && cat environ', 'me'],
    ['head -c 100 me/environ', 'me/environ'],
  ])('%s', async (command, word) => {
    expect(await verdict(command, {})).toEqual(
      asked(`${word} leads through a symbolic link into /proc, where process environments are`),
    )
  })

  it('a link loop cannot be followed, so it asks', async () => {
    expect(await verdict('cat loop', {})).toEqual(asked('loop is a symbolic link that cannot be followed'))
  })

  it('a /proc or /dev name as written is the read-only check’s: cat /proc/cpuinfo stays read-only', async () => {
    expect(await verdict('cat /proc/cpuinfo', {})).toEqual({ behavior: 'allow', reason: undefined })
    expect(await verdict('cat /dev/null', {})).toEqual({ behavior: 'allow', reason: undefined })
  })
})
