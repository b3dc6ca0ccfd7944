import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { comparePaths } from '../../src/adapters/grep-format.js'
import { ALWAYS_IGNORED, expandBraces, globMatcher, walkFiles, walkTree } from '../../src/adapters/search-walk.js'
import { ripgrepInstalled } from '../programs.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'toolkernel-walk-'))
  dirs.push(root)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}

const paths = async (root: string, glob?: string): Promise<string[]> => (await walkTree(root, glob)).map((f) => f.path)

describe('walkTree', () => {
  it('applies .gitignore, .ignore and .rgignore where they are, deepest first, and never enters ignored directories', async () => {
    const root = tree({
      '.gitignore': 'generated/\n*.log\n',
      'generated/out.ts': '',
      'debug.log': '',
      'src/a.ts': '',
      'src/.ignore': 'secret.ts\n',
      'src/secret.ts': '',
      'src/keep.log': '',
      'src/.rgignore': '!keep.log\n',
      'node_modules/x.js': '',
      'dist/y.js': '',
    })
    expect(await paths(root)).toEqual(['.gitignore', 'src/.ignore', 'src/.rgignore', 'src/a.ts', 'src/keep.log'])
  })

  it('searches a root inside a directory its parent’s ignore file ignores, as ripgrep does', async () => {
    // A path given to search is searched; the parent's other rules still apply below it.
    const root = tree({ '.gitignore': 'vendor/\n*.log\n', 'vendor/lib/a.ts': '', 'vendor/lib/b.log': '' })
    expect(await paths(join(root, 'vendor', 'lib'))).toEqual(['a.ts'])
    expect(await paths(root)).toEqual(['.gitignore'])
  })

  it('reads the ignore files of the root’s parents, and does not follow symlinks inside the tree', async () => {
    const root = tree({ '.gitignore': '*.log\n', 'sub/a.log': '', 'sub/b.ts': '', 'other/c.ts': '' })
    symlinkSync(join(root, 'other'), join(root, 'sub', 'linked'))
    symlinkSync(join(root, 'other', 'c.ts'), join(root, 'sub', 'c.ts'))
    expect(await paths(join(root, 'sub'))).toEqual(['b.ts'])
  })

  it('matches --glob as ripgrep does: gitignore-style, on the path, over the ignore files', async () => {
    const root = tree({
      '.gitignore': '*.log\ngenerated/\n',
      'top.ts': '',
      'debug.log': '',
      'src/a.ts': '',
      'src/x.js': '',
      'src/deep/b.ts': '',
      'generated/g.ts': '',
    })
    expect(await paths(root, '*.ts')).toEqual(['src/a.ts', 'src/deep/b.ts', 'top.ts'])
    expect(await paths(root, 'src/*.ts')).toEqual(['src/a.ts'])
    expect(await paths(root, '**/*.ts')).toEqual(['src/a.ts', 'src/deep/b.ts', 'top.ts'])
    expect(await paths(root, 'src/**')).toEqual(['src/a.ts', 'src/deep/b.ts', 'src/x.js'])
    expect(await paths(root, '*.{ts,js}')).toEqual(['src/a.ts', 'src/deep/b.ts', 'src/x.js', 'top.ts'])
    expect(await paths(root, '!*.ts')).toEqual(['.gitignore', 'src/x.js'])
    expect(await paths(root, '!src')).toEqual(['.gitignore', 'top.ts'])
    expect(await paths(root, '*.log')).toEqual(['debug.log'])
    expect(await paths(root, 'src')).toEqual([])
    expect(await paths(root, '/top.ts')).toEqual(['top.ts'])
  })
})

/** The files ripgrep would search, with the flags the kernel gives it. */
function ripgrepFiles(root: string, glob?: string): string[] {
  const globs = [...ALWAYS_IGNORED.map((d) => `!${d}`), ...(glob === undefined ? [] : [glob])]
  const args = ['--files', '--no-config', '--hidden', '--no-require-git', '--sort', 'path']
  // In the root, as the adapter runs it: ripgrep anchors globs at its working directory.
  const out = spawnSync('rg', [...args, ...globs.flatMap((g) => ['--glob', g]), root], { encoding: 'utf8', cwd: root })
  return out.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => relative(root, l))
}

describe.skipIf(!ripgrepInstalled)('walkTree and rg --files (needs ripgrep on PATH)', () => {
  it('choose the same files', async () => {
    const root = tree({
      '.gitignore': '*.log\ngenerated/\n/only-top.txt\n',
      '.hidden/h.ts': '',
      'top.ts': '',
      'only-top.txt': '',
      'debug.log': '',
      'src/a.ts': '',
      'src/only-top.txt': '',
      'src/x.js': '',
      'src/deep/b.ts': '',
      'src/deep/.gitignore': '!keep.log\n*.tmp\n',
      'src/deep/keep.log': '',
      'src/deep/c.tmp': '',
      'src/.ignore': 'x.js\n',
      'generated/g.ts': '',
      'node_modules/m.js': '',
      'a b/c.ts': '',
      'a.c': '',
      'a-b/d.ts': '',
    })
    for (const glob of [
      undefined,
      '*.ts',
      'src/*.ts',
      '**/*.ts',
      'src/**',
      '*.{ts,js}',
      '!*.ts',
      '!src',
      '*.log',
      'src',
      '/top.ts',
      'deep/*',
    ]) {
      expect({ glob, files: await paths(root, glob) }).toEqual({ glob, files: ripgrepFiles(root, glob) })
    }
    expect(await paths(join(root, 'src'))).toEqual(ripgrepFiles(join(root, 'src')))
  })

  it('search a root that a parent’s ignore file ignores, applying the rest of its rules inside', async () => {
    const root = tree({
      '.gitignore': 'vendor/\n*.log\n/vendor/lib/deep/x.ts\n',
      'vendor/lib/a.ts': '',
      'vendor/lib/b.log': '',
      'vendor/lib/deep/x.ts': '',
      'vendor/lib/deep/y.ts': '',
    })
    for (const dir of ['vendor', 'vendor/lib', 'vendor/lib/deep'])
      expect({ dir, files: await paths(join(root, dir)) }).toEqual({ dir, files: ripgrepFiles(join(root, dir)) })
  })
})

describe('walkFiles', () => {
  it('yields the files in path order as it walks, past the directories it reads ahead', async () => {
    const files: Record<string, string> = { '.gitignore': 'skip*/\n' }
    // More subdirectories than are read ahead, nested, with names that sort around '/'.
    for (let i = 0; i < 30; i++) {
      files[`d${i}/f.ts`] = ''
      files[`d${i}.ts`] = ''
      files[`d${i}/sub/deeper/x.ts`] = ''
      files[`skip${i}/hidden.ts`] = ''
    }
    const root = tree(files)
    const batches: string[][] = []
    for await (const batch of walkFiles(root, undefined)) batches.push(batch.map((f) => f.path))
    const all = batches.flat()
    expect(all).toEqual([...all].sort(comparePaths))
    expect(all).toHaveLength(91)
    expect(all.some((p) => p.startsWith('skip'))).toBe(false)
    expect(batches.length).toBeGreaterThan(1)
    expect(all).toEqual(await paths(root))
  })

  it('ends where it is when the consumer stops', async () => {
    const root = tree(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`d${i}/f.ts`, ''])))
    const walk = walkFiles(root, undefined)
    const first = await walk.next()
    expect(first.done).toBe(false)
    expect(await walk.return(undefined)).toEqual({ done: true, value: undefined })
    expect((await walk.next()).done).toBe(true)
  })
})

describe('globs and order', () => {
  it('compares paths as splitting them into names and comparing name by name would', () => {
    const byNames = (a: string, b: string): number => {
      const x = a.split('/')
      const y = b.split('/')
      for (let i = 0; i < Math.min(x.length, y.length); i++)
        if (x[i] !== y[i]) return (x[i] as string) < (y[i] as string) ? -1 : 1
      return x.length - y.length
    }
    const name = fc.string({
      unit: fc.constantFrom('a', 'b', '.', '-', ' ', 'B', '_', 'é', '0'),
      minLength: 1,
      maxLength: 4,
    })
    const path = fc.array(name, { minLength: 1, maxLength: 4 }).map((names) => names.join('/'))
    fc.assert(
      fc.property(path, path, (a, b) => {
        expect(Math.sign(comparePaths(a, b))).toBe(Math.sign(byNames(a, b)))
      }),
      { numRuns: 2000 },
    )
  })

  it('expands braces, nested too', () => {
    expect(expandBraces('a{b,c}d')).toEqual(['abd', 'acd'])
    expect(expandBraces('*.{ts,{m,c}js}')).toEqual(['*.ts', '*.mjs', '*.cjs'])
    expect(expandBraces('x{y')).toEqual(['x{y'])
  })

  it('treats ? and [] as gitignore does', () => {
    const m = globMatcher('f?[ab].[!x]s')
    expect(['fxa.ts', 'f1b.js', 'fxa.xs', 'f/a.ts', 'd/fza.ts'].map((p) => m.file(p))).toEqual([
      true,
      true,
      false,
      false,
      true,
    ])
  })

  it('orders paths name by name, as ripgrep --sort path does', () => {
    const names = ['a.c', 'a/b', 'B', 'Z', '_x', 'a b', 'a-b/c', 'a0', 'é.txt', 'e.txt']
    expect(names.sort(comparePaths)).toEqual(['B', 'Z', '_x', 'a/b', 'a b', 'a-b/c', 'a.c', 'a0', 'e.txt', 'é.txt'])
  })
})
