/**
 * The agent loop every SDK test runs: a small project in a real temp directory, and three model
 * turns — look around (Glob, Grep, Read in one parallel batch), change things (Edit, Write, then
 * Bash to check), and a final answer. The same script for every provider, so the tests differ only
 * in the SDK code a README would show.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { builtinTools, createKernel, createMemoryLog, type Kernel } from '../../src/index.js'
import type { ModelApi, ScriptedTurn } from '../model-api/server.js'

export interface Project {
  dir: string
  app: string
  notes: string
  cleanup(): void
}

export const APP_SOURCE = "export function greet(name: string) {\n  // TODO: say hello\n  return 'bye ' + name\n}\n"

export function makeProject(): Project {
  const dir = mkdtempSync(join(tmpdir(), 'toolkernel-sdk-'))
  mkdirSync(join(dir, 'src'))
  const app = join(dir, 'src', 'app.ts')
  writeFileSync(app, APP_SOURCE)
  writeFileSync(join(dir, 'README.md'), '# demo\n')
  return { dir, app, notes: join(dir, 'NOTES.md'), cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** The kernel an app would create: the built-in tools, edits accepted, the project as cwd. */
export function projectKernel(project: Project): Kernel {
  return createKernel({
    tools: builtinTools,
    cwd: project.dir,
    permissions: { mode: 'acceptEdits' },
    log: createMemoryLog(),
  })
}

/** The model's three turns. */
export function threeTurns(project: Project): ScriptedTurn[] {
  return [
    {
      text: 'Let me look at the project.',
      calls: [
        { name: 'Glob', input: { pattern: '**/*.ts', path: project.dir } },
        { name: 'Grep', input: { pattern: 'TODO', path: project.dir, output_mode: 'content' } },
        { name: 'Read', input: { file_path: project.app } },
      ],
    },
    {
      calls: [
        { name: 'Edit', input: { file_path: project.app, old_string: "'bye '", new_string: "'hello '" } },
        { name: 'Write', input: { file_path: project.notes, content: 'greet now says hello\n' } },
        { name: 'Bash', input: { command: 'wc -l src/app.ts NOTES.md' } },
      ],
    },
    { text: 'Fixed: greet says hello, and NOTES.md records it.' },
  ]
}

/**
 * What must hold after the loop: the files changed on disk, the model was shown what the tools
 * found, and the server accepted every request (each tool call answered exactly once).
 */
export function expectLoopDone(project: Project, api: ModelApi, toolTexts: (requestIndex: number) => string): void {
  expect(api.rejected()).toEqual([])
  expect(api.remaining()).toBe(0)
  expect(api.requests).toHaveLength(3)
  expect(readFileSync(project.app, 'utf8')).toContain("'hello ' + name")
  expect(readFileSync(project.notes, 'utf8')).toBe('greet now says hello\n')
  const first = toolTexts(1)
  expect(first).toContain('src/app.ts') // Glob
  expect(first).toContain('TODO: say hello') // Grep and Read
  const second = toolTexts(2)
  expect(second).toMatch(/NOTES\.md/)
  expect(second).toMatch(/\b4 src\/app\.ts/) // Bash ran after the edit and the write
}
