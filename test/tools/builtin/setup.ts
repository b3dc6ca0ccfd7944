import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach } from 'vitest'
import {
  builtinTools,
  createDirectoryResultStore,
  type KernelOptions,
  type ToolResultBlock,
} from '../../../src/index.js'
import { assistant, testKernel } from '../../helpers.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A temporary project with the given files, and a kernel running the built-in tools in it. */
export function project(files: Record<string, string | Uint8Array> = {}, options: Partial<KernelOptions> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'toolkernel-builtin-'))
  dirs.push(root)
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
