/** Tools for the entry-point tests: each records that it ran, so a test can say what did not. */
import { z } from 'zod'
import { buildTool } from '../../src/index.js'

export function recordingTools(ran: string[] = []) {
  const Read = buildTool({
    name: 'Read',
    description: () => 'Reads a file.',
    inputSchema: z.object({ file_path: z.string() }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    async call({ file_path: path }) {
      ran.push(`Read ${path}`)
      return `contents of ${path}`
    },
  })
  const Glob = buildTool({
    name: 'Glob',
    description: () => 'Finds files.',
    inputSchema: z.object({ pattern: z.string() }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    async call({ pattern }) {
      ran.push(`Glob ${pattern}`)
      return `matches of ${pattern}`
    },
  })
  const Grep = buildTool({
    name: 'Grep',
    description: () => 'Searches files.',
    inputSchema: z.object({ pattern: z.string(), path: z.string() }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    async call({ pattern }) {
      ran.push(`Grep ${pattern}`)
      return `3 matches of ${pattern}`
    },
  })
  // Not concurrency-safe: it never starts before the message has ended in tool use.
  const Write = buildTool({
    name: 'Write',
    description: () => 'Writes a file.',
    inputSchema: z.object({ file_path: z.string(), content: z.string() }),
    async call({ file_path: path }) {
      ran.push(`Write ${path}`)
      return `wrote ${path}`
    },
  })
  return { ran, tools: [Read, Glob, Grep, Write] }
}
