import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { onTestFinished } from 'vitest'
import {
  builtinTools,
  createDirectoryResultStore,
  type KernelOptions,
  type ToolResultBlock,
} from '../../../src/index.js'
import { assistant, testKernel } from '../../helpers.js'

/**
 * Removes `dir` when the test that made it ends. Not a module-level afterEach: test files share
 * their worker's modules (isolate: false), so a hook registered when this module first loads
 * belongs to the first file that imported it, and every later file's directories stayed in /tmp.
 */
function removeAfterTest(dir: string): void {
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
}

/** A temporary project with the given files, and a kernel running the built-in tools in it. */
export function project(files: Record<string, string | Uint8Array> = {}, options: Partial<KernelOptions> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'toolkernel-builtin-'))
  removeAfterTest(root)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  const kernel = testKernel(builtinTools, {
    cwd: root,
    results: createDirectoryResultStore(join(root, '.results')),
    permissions: { mode: 'bypassPermissions' },
    ...options,
  })
  let n = 0
  /** Runs one call and returns its block. */
  const call = async (name: string, input: unknown): Promise<ToolResultBlock> => {
    const { message } = await kernel.runTurn(assistant([`call_${++n}`, name, input]))
    return message.content[0] as ToolResultBlock
  }
  return { root, kernel, call, path: (p: string) => join(root, p) }
}

export const text = (block: ToolResultBlock): string =>
  typeof block.content === 'string' ? block.content : JSON.stringify(block.content)
