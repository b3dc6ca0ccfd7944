/**
 * Small tools for `toolkernel demo`, over a temporary directory. They show the contract; the
 * built-in tools (Read, Write, …) are the real ones.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import { z } from 'zod'
import { buildTool } from '../tools/build-tool.js'

const inside = (root: string, path: string): string => {
  const full = resolve(root, path)
  if (relative(root, full).startsWith('..')) throw new Error(`${path} is outside the demo directory`)
  return full
}

export function demoTools(root: string) {
  const List = buildTool({
    name: 'List',
    description: () => 'Lists the files in a directory of the demo project, one per line. Read-only.',
    inputSchema: z.object({ dir: z.string().describe('Directory relative to the project root, e.g. "src"') }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    async call({ dir }) {
      const entries = await readdir(inside(root, dir), { withFileTypes: true })
      return entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort().join('\n')
    },
  })
  const Cat = buildTool({
    name: 'Cat',
    description: () => 'Returns the text of a file in the demo project. Read-only; takes about 30 ms to show parallel reads.',
    inputSchema: z.object({ path: z.string().describe('File path relative to the project root') }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    async *call({ path }) {
      yield `reading ${path}`
      await new Promise((r) => setTimeout(r, 30))
      return await readFile(inside(root, path), 'utf8')
    },
  })
  const Note = buildTool({
    name: 'Note',
    description: () => 'Appends a line to NOTES.md in the demo project. Writes, so it runs alone.',
    inputSchema: z.object({ line: z.string().min(1).describe('The line to append') }),
    async call({ line }) {
      const path = join(root, 'NOTES.md')
      const before = await readFile(path, 'utf8').catch(() => '')
      await writeFile(path, `${before}${line}\n`)
      return `NOTES.md now has ${before.split('\n').filter(Boolean).length + 1} line(s)`
    },
  })
  const Count = buildTool({
    name: 'Count',
    description: () => 'Counts slowly to a number, one line every 60 ms. Stops at once when interrupted.',
    inputSchema: z.object({ to: z.number().int().min(1).max(100).describe('The number to count to') }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    interruptBehavior: () => 'cancel',
    async *call({ to }, ctx) {
      for (let n = 1; n <= to; n++) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 60)
          ctx.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
        })
        if (ctx.signal.aborted) return 'stopped'
        yield `${n}\n`
      }
      return Array.from({ length: to }, (_, i) => i + 1).join('\n')
    },
  })
  return [List, Cat, Note, Count]
}

/** The scripted assistant message the demo runs: parallel reads, a write, bad input, an unknown tool. */
export const demoMessage = {
  role: 'assistant' as const,
  content: [
    { type: 'text' as const, text: 'I will look around the project, then take a note.' },
    { type: 'tool_use' as const, id: 'toolu_01_list', name: 'List', input: { dir: '.' } },
    { type: 'tool_use' as const, id: 'toolu_02_cat', name: 'Cat', input: { path: 'README.md' } },
    { type: 'tool_use' as const, id: 'toolu_03_cat', name: 'Cat', input: { path: 'src/main.txt' } },
    { type: 'tool_use' as const, id: 'toolu_04_note', name: 'Note', input: { line: 'read README and main' } },
    { type: 'tool_use' as const, id: 'toolu_05_cat', name: 'Cat', input: { file: 'README.md' } },
    { type: 'tool_use' as const, id: 'toolu_06_grep', name: 'Grp', input: { pattern: 'TODO' } },
    { type: 'tool_use' as const, id: 'toolu_07_list', name: 'List', input: { dir: 'src' } },
  ],
}
