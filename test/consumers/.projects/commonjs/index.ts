// A CommonJS app: toolkernel is ESM, so it is loaded with import() (types with resolution-mode).
import type { Kernel } from 'toolkernel' with { 'resolution-mode': 'import' }

export async function makeKernel(cwd: string): Promise<Kernel> {
  const { builtinTools, createKernel } = await import('toolkernel')
  return createKernel({ tools: builtinTools, cwd })
}
