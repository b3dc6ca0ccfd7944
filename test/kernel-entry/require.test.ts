/**
 * `require('toolkernel')` from CommonJS: the shim (src/require.cts, built to dist/require.cjs)
 * hands over the ES module where Node can require one, and otherwise throws an error that says
 * what to do. Run in real Node child processes, against the shim compiled as the build compiles
 * it, beside an ES module standing in for dist/index.js.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'

const dir = mkdtempSync(join(tmpdir(), 'toolkernel-require-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const source = readFileSync(new URL('../../src/require.cts', import.meta.url), 'utf8')
const compiled = ts.transpileModule(source, {
  fileName: 'require.cts',
  compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022 },
}).outputText
writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
writeFileSync(join(dir, 'index.js'), 'export function createKernel() { return "a kernel" }\n')
writeFileSync(join(dir, 'require.cjs'), compiled)

function node(flags: string[]): { out: string; failed: boolean } {
  const script = `const t = require(${JSON.stringify(join(dir, 'require.cjs'))}); console.log(t.createKernel())`
  try {
    return {
      out: execFileSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8', stdio: 'pipe' }),
      failed: false,
    }
  } catch (error) {
    return { out: String((error as { stderr?: unknown }).stderr), failed: true }
  }
}

describe('require("toolkernel")', () => {
  it('where Node can require an ES module (20.19+), require gives the module', () => {
    const { out, failed } = node([])
    expect(failed).toBe(false)
    expect(out.trim()).toBe('a kernel')
  })

  it('where it cannot, the error says toolkernel is ESM-only and what to use instead', () => {
    const { out, failed } = node(['--no-experimental-require-module'])
    expect(failed).toBe(true)
    expect(out).toContain("toolkernel is ESM-only: use import … or await import('toolkernel')")
    expect(out).not.toContain('ERR_PACKAGE_PATH_NOT_EXPORTED')
  })
})
