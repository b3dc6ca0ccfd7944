/**
 * Glob's pattern semantics after it moved off tinyglobby (docs/decisions/tools.md, 141): on a tree
 * with no ignore files and no symlinks, the streamed search lists exactly what tinyglobby lists.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { glob } from 'tinyglobby'
import { afterAll, describe, expect, it } from 'vitest'
import { ALWAYS_IGNORED, createFileSearch } from '../../src/adapters/file-search.js'

const root = mkdtempSync(join(tmpdir(), 'tk-glob-patterns-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const FILES = [
  'a.ts',
  'b.js',
  '.hidden.ts',
  'README.md',
  'src/index.ts',
  'src/index.js',
  'src/util/x.ts',
  'src/util/deep/y.tsx',
  'src/.env',
  'docs/a/b/c.md',
  'docs/b/notes.md',
  'weird name [1].txt',
  'node_modules/dep/index.js',
]
for (const file of FILES) {
  mkdirSync(dirname(join(root, file)), { recursive: true })
  writeFileSync(join(root, file), '')
}

const PATTERNS = [
  '*',
  '**/*',
  '*.ts',
  '**/*.ts',
  'src/**',
  'src/*.{ts,js}',
  '**/index.?s',
  'docs/**/b/*.md',
  '**/.*',
  '[ab].*',
  'src/**/*.ts*',
  './src/*.ts',
  '**/*.{md,tsx}',
  'src/util/**/*',
]

describe('Glob patterns', () => {
  it.for(PATTERNS)('%s lists what tinyglobby lists', async (pattern) => {
    const expected = await glob(pattern, {
      cwd: root,
      dot: true,
      onlyFiles: true,
      ignore: ALWAYS_IGNORED.map((d) => `**/${d}/**`),
    })
    const found = await createFileSearch().glob(pattern, root)
    const paths = (Array.isArray(found) ? found : found.matches).map((m) => m.path)
    expect(paths.sort()).toEqual(expected.sort())
  })
})
