/**
 * `toolkernel replay` tells what it checked. Without `--tools` the app's tools are stand-ins built
 * from the log, which have no schema: a call the log shows rejected for invalid input is reported
 * as not checked (exit 0), never as a divergence; a decision the engine makes on its own is still
 * checked (exit 1 when it changed). With `--tools` the real schemas decide. The real bin, as a
 * child process (npm test builds dist first).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type * as Toolkernel from '../../src/index.js'
import { toolkernel } from './run-cli.js'

const toolsModule = new URL('../fixtures/tools/notes.tools.mjs', import.meta.url).pathname
const changedTools = new URL('../fixtures/tools/notes-changed.tools.mjs', import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), 'toolkernel-cli-replay-'))
const log = join(dir, 'notes.jsonl')
const savedLog = join(dir, 'saved.jsonl')
const results = join(dir, 'results')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

beforeAll(async () => {
  // The built library and the module `--tools` loads: the log is written as an app would write it.
  const { buildTool, createDirectoryResultStore, createKernel, createJsonlLog } = (await import(
    new URL('../../dist/index.js', import.meta.url).href
  )) as typeof Toolkernel
  const { tools } = (await import(toolsModule)) as { tools: Toolkernel.Tool[] }
  let t = 0
  const clock = { now: () => t++ }
  const kernel = createKernel({ tools, ports: { clock }, log: createJsonlLog(log, clock), cwd: dir })
  await kernel.runTurn({
    role: 'assistant',
    content: [
      { type: 'tool_use', id: 'toolu_n1', name: 'AddNote', input: { text: 7 } },
      { type: 'tool_use', id: 'toolu_n2', name: 'AddNote', input: { text: 'my secret' } },
      { type: 'tool_use', id: 'toolu_n3', name: 'AddNote', input: { text: 'hello' } },
    ],
  })
  await kernel.runTurn({
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_n4', name: 'AddNote', input: { text: '', extra: true } }],
  })
  kernel.log.close()
  // Output too large for the message goes to the result store; the log names the file.
  const { z } = await import('zod')
  const Dump = buildTool({
    name: 'Dump',
    description: () => 'Dumps a long text.',
    inputSchema: z.object({}),
    maxResultSizeChars: 100,
    call: async () => 'line of output\n'.repeat(50),
  })
  const dumper = createKernel({
    tools: [Dump],
    ports: { clock },
    log: createJsonlLog(savedLog, clock),
    cwd: dir,
    results: createDirectoryResultStore(results),
  })
  await dumper.runTurn({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_d1', name: 'Dump', input: {} }] })
  dumper.log.close()
})

describe('toolkernel replay without --tools', () => {
  it('reports a schema check it cannot make as not checked, and exits 0', async () => {
    const { code, stdout } = await toolkernel(['replay', log, '--quiet'])
    expect(stdout).not.toContain('DIVERGENCE')
    const notChecked = stdout.split('\n').filter((line) => line.startsWith('  not checked'))
    expect(notChecked).toHaveLength(2)
    expect(notChecked[0]).toMatch(/toolu_n1 AddNote .*event \d+.* input validation .*Invalid input for AddNote/)
    expect(notChecked[1]).toMatch(/toolu_n4 AddNote .*input validation/)
    expect(stdout).toContain('Not checked — pass --tools to check:')
    expect(stdout).toMatch(
      /Determinism check: ok — checked what could be checked: 2 turn\(s\) re-executed, every decision checked the same; 2 input check\(s\) left to the log\./,
    )
    expect(code).toBe(0)
  })

  it('still exits 1 on a real divergence: a decision the engine makes whatever the tools', async () => {
    const changed = join(dir, 'changed.jsonl')
    writeFileSync(changed, readFileSync(log, 'utf8').replace('"results":3', '"results":4'))
    const { code, stdout } = await toolkernel(['replay', changed, '--quiet'])
    expect(stdout).toMatch(/Determinism check: DIVERGENCE in turn \S+ at event \d+: the log has turn\.completed/)
    expect(code).toBe(1)
  })

  it('says when a log is too old to name its tools, so that stand-ins are a guess', async () => {
    const old = new URL('../fixtures/logs/abort.jsonl', import.meta.url).pathname
    const { stdout } = await toolkernel(['replay', old, '--quiet'])
    expect(stdout).toContain(
      "(the log is older than session.configured: the session's tools are guessed from its calls",
    )
    expect((await toolkernel(['replay', log, '--quiet'])).stdout).not.toContain('older than session.configured')
  })
})

describe('toolkernel replay --tools', () => {
  it('checks the real tools: every check made, nothing left to the log', async () => {
    const { code, stdout } = await toolkernel(['replay', log, '--quiet', '--tools', toolsModule])
    expect(stdout).not.toMatch(/not checked|stand-in/i)
    expect(stdout).toContain('Determinism check: ok — 2 turn(s) re-executed, every decision the same.')
    expect(code).toBe(0)
  })

  it('finds the divergence a changed schema makes, which stand-ins cannot see', async () => {
    const { code, stdout } = await toolkernel(['replay', log, '--quiet', '--tools', changedTools])
    expect(stdout).toMatch(/DIVERGENCE in turn \S+ at event \d+: the log has tool\.\w+ .*"toolu_n1"/)
    expect(code).toBe(1)
  })

  it("says which of the module's tools the log never had, and so were not used", async () => {
    const more = join(dir, 'more.tools.mjs')
    writeFileSync(
      more,
      `import { tools as notes } from ${JSON.stringify(toolsModule)}\nexport const tools = [...notes, { ...notes[0], name: 'AddNtoe' }]\n`,
    )
    const { code, stdout } = await toolkernel(['replay', log, '--quiet', '--tools', more])
    expect(stdout).toContain("(--tools: AddNtoe not among this log's tools, so not used)")
    expect(stdout).toContain('every decision the same')
    expect(code).toBe(0)
  })

  it('says what is wrong with a module that is not a tools module', async () => {
    const missing = await toolkernel(['replay', log, '--tools', join(dir, 'nope.mjs')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/toolkernel replay: cannot load tools from \S+nope\.mjs: /)
    const noExport = join(dir, 'no-export.mjs')
    writeFileSync(noExport, 'export const tool = 1\n')
    const none = await toolkernel(['replay', log, '--tools', noExport])
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/no-export\.mjs must export `tools`, an array of tools made with buildTool/)
    const notTools = join(dir, 'not-tools.mjs')
    writeFileSync(notTools, 'export const tools = [{ name: "AddNote" }]\n')
    const bad = await toolkernel(['replay', log, '--tools', notTools])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/not-tools\.mjs: tools\[0\] \("AddNote"\) is not a tool made with buildTool/)
  })
})

describe('toolkernel replay of output saved to the result store', () => {
  it('rebuilds the preview from the saved file; without it, leaves the preview to the log and exits 0', async () => {
    const there = await toolkernel(['replay', savedLog, '--quiet'])
    expect(there.stdout).toContain('every decision the same')
    expect(there.stdout).not.toContain('Not checked')
    expect(there.code).toBe(0)
    // The results directory is gone (another machine, a cleaned directory): not a divergence.
    const [file] = readdirSync(results)
    rmSync(results, { recursive: true })
    const gone = await toolkernel(['replay', savedLog, '--quiet'])
    expect(gone.stdout).toContain(
      'Not checked — previews of output replay could not read back (replay where the result store is):',
    )
    expect(gone.stdout).toMatch(
      new RegExp(
        `not checked: toolu_d1 Dump \\(turn \\S+, event \\d+\\): the saved output \\S+/${file} is not there to read, so its preview, which quotes it, is the log's`,
      ),
    )
    expect(gone.stdout).toMatch(
      /Determinism check: ok — checked what could be checked: 1 turn\(s\) re-executed, every decision checked the same; 1 saved output preview\(s\) left to the log\./,
    )
    expect(gone.code).toBe(0)
  })
})
