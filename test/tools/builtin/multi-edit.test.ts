import { readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createKernel, MultiEdit, Read, type CanUseTool, type ToolResultBlock } from '../../../src/index.js'
import { project, text } from './setup.js'

const source = 'const a = 1\nconst b = 2\nconst c = 3\nconst b2 = 2\n'

describe('MultiEdit', () => {
  it('applies the edits in order, each to the text the previous left, and shows the changed lines', async () => {
    const { call, path } = project({ 'x.ts': source })
    await call('Read', { file_path: path('x.ts') })
    const block = await call('MultiEdit', {
      file_path: path('x.ts'),
      edits: [
        { old_string: 'const a = 1', new_string: 'let a = 10' },
        { old_string: '= 2', new_string: '= 20', replace_all: true },
        // Matches text the first edit wrote.
        { old_string: 'let a = 10', new_string: 'let a = 100' },
      ],
    })
    expect(text(block)).toBe(
      `Applied 3 edits to ${path('x.ts')} (4 replacements):\n     1\tlet a = 100\n     2\tconst b = 20\n     3\tconst c = 3\n     4\tconst b2 = 20`,
    )
    expect(readFileSync(path('x.ts'), 'utf8')).toBe('let a = 100\nconst b = 20\nconst c = 3\nconst b2 = 20\n')
  })

  it('writes nothing when one edit fails, and names the edit and why', async () => {
    const { call, path } = project({ 'x.ts': source })
    await call('Read', { file_path: path('x.ts') })
    const missing = await call('MultiEdit', {
      file_path: path('x.ts'),
      edits: [
        { old_string: 'const a = 1', new_string: 'let a = 1' },
        { old_string: 'const z', new_string: 'x' },
      ],
    })
    expect(missing.is_error).toBe(true)
    expect(text(missing)).toBe(
      `MultiEdit failed: edits[1] failed (after edits[0] was applied): old_string was not found in ${path('x.ts')}; check whitespace and indentation, or Read the file again to see its current text. No edit was applied; ${path('x.ts')} is unchanged`,
    )
    const several = await call('MultiEdit', {
      file_path: path('x.ts'),
      edits: [
        { old_string: 'const a', new_string: 'let a' },
        { old_string: 'const c', new_string: 'let c' },
        { old_string: '= 2', new_string: '= 5' },
      ],
    })
    expect(text(several)).toMatch(
      /^MultiEdit failed: edits\[2\] failed \(after edits\[0\]\.\.edits\[1\] were applied\): old_string occurs 2 times in .*x\.ts; .* set replace_all/,
    )
    expect(readFileSync(path('x.ts'), 'utf8')).toBe(source)
  })

  it('rejects empty and no-op edits by index before running', async () => {
    const { call, path } = project({ 'x.ts': source })
    expect(
      text(
        await call('MultiEdit', {
          file_path: path('x.ts'),
          edits: [
            { old_string: 'a', new_string: 'b' },
            { old_string: '', new_string: 'b' },
          ],
        }),
      ),
    ).toMatch(/edits\[1\]: old_string is empty/)
    expect(
      text(await call('MultiEdit', { file_path: path('x.ts'), edits: [{ old_string: 'a', new_string: 'a' }] })),
    ).toMatch(/edits\[0\]: old_string and new_string are the same/)
    expect(text(await call('MultiEdit', { file_path: path('x.ts'), edits: [] }))).toMatch(/edits/)
    expect(text(await call('MultiEdit', { file_path: 'x.ts', edits: [{ old_string: 'a', new_string: 'b' }] }))).toMatch(
      /file_path must be an absolute path/,
    )
  })

  it('refuses a file not read in this session, or changed on disk since it was read', async () => {
    const { call, path } = project({ 'x.ts': source })
    const edits = [{ old_string: 'const a', new_string: 'let a' }]
    expect(text(await call('MultiEdit', { file_path: path('x.ts'), edits }))).toMatch(
      /has not been read in this session; Read it before you edit it/,
    )
    await call('Read', { file_path: path('x.ts') })
    writeFileSync(path('x.ts'), `${source}// more\n`)
    const future = new Date(Date.now() + 5000)
    utimesSync(path('x.ts'), future, future)
    expect(text(await call('MultiEdit', { file_path: path('x.ts'), edits }))).toMatch(
      /changed on disk since you read it/,
    )
    expect(readFileSync(path('x.ts'), 'utf8')).toBe(`${source}// more\n`)
    expect(text(await call('MultiEdit', { file_path: path('gone.ts'), edits }))).toMatch(/no such file/)
  })

  it('either applies every edit, as applying them in order to the string does, or leaves the file byte-identical', async () => {
    const { call, path } = project()
    let n = 0
    const piece = fc.constantFrom('a', 'b', 'ab', 'ba', '\n', 'é', '$&', '$1', 'c')
    const textArb = fc.array(piece, { maxLength: 12 }).map((p) => p.join(''))
    const edit = fc.record({
      old_string: textArb,
      new_string: textArb,
      replace_all: fc.option(fc.boolean(), { nil: undefined }),
    })
    await fc.assert(
      fc.asyncProperty(textArb, fc.array(edit, { minLength: 1, maxLength: 5 }), async (before, edits) => {
        const file = path(`f${++n}.txt`)
        writeFileSync(file, before)
        await call('Read', { file_path: file })
        const block = await call('MultiEdit', { file_path: file, edits })
        const expected = applyInOrder(before, edits)
        if (expected === undefined) {
          expect(block.is_error, text(block)).toBe(true)
          expect(readFileSync(file, 'utf8')).toBe(before)
        } else {
          expect(block.is_error, text(block)).not.toBe(true)
          expect(readFileSync(file, 'utf8')).toBe(expected)
        }
      }),
      { numRuns: 150 },
    )
  })
})

/** The oracle: each edit as a string operation, in order; undefined when any may not apply. */
function applyInOrder(
  text: string,
  edits: readonly { old_string: string; new_string: string; replace_all?: boolean | undefined }[],
): string | undefined {
  let out = text
  for (const { old_string: from, new_string: to, replace_all: all } of edits) {
    if (from === '' || from === to) return undefined
    let count = 0
    for (let at = out.indexOf(from); at !== -1; at = out.indexOf(from, at + from.length)) count++
    if (count === 0 || (count > 1 && all !== true)) return undefined
    out = out.replaceAll(from, () => to)
  }
  return out
}

describe('MultiEdit under Edit permissions', () => {
  const edits = [{ old_string: 'x', new_string: 'y' }]

  it('an Edit allow rule allows it, and outside the rule it asks', async () => {
    const asked: string[] = []
    const canUseTool: CanUseTool = (request) => {
      asked.push(request.tool)
      return { behavior: 'deny', message: 'no' }
    }
    const { call, path } = project(
      { 'src/a.txt': 'x', 'b.txt': 'x' },
      { permissions: { mode: 'default', allow: ['Read', 'Edit(./src/**)'] }, canUseTool },
    )
    await call('Read', { file_path: path('src/a.txt') })
    await call('Read', { file_path: path('b.txt') })
    expect(text(await call('MultiEdit', { file_path: path('src/a.txt'), edits }))).toMatch(/^Applied 1 edit/)
    expect(asked).toEqual([])
    expect((await call('MultiEdit', { file_path: path('b.txt'), edits })).is_error).toBe(true)
    expect(asked).toEqual(['MultiEdit'])
    expect(readFileSync(path('b.txt'), 'utf8')).toBe('x')
  })

  it('an Edit deny rule denies it, in every mode; a MultiEdit rule names it too', async () => {
    const { call, path } = project(
      { 'locked.txt': 'x', 'other.txt': 'x' },
      { permissions: { mode: 'bypassPermissions', deny: ['Edit(./locked.txt)', 'MultiEdit(./other.txt)'] } },
    )
    await call('Read', { file_path: path('locked.txt') })
    await call('Read', { file_path: path('other.txt') })
    expect(text(await call('MultiEdit', { file_path: path('locked.txt'), edits }))).toMatch(/Edit\(\.\/locked\.txt\)/)
    expect(text(await call('MultiEdit', { file_path: path('other.txt'), edits }))).toMatch(
      /MultiEdit\(\.\/other\.txt\)/,
    )
    expect(readFileSync(path('locked.txt'), 'utf8')).toBe('x')
    expect(readFileSync(path('other.txt'), 'utf8')).toBe('x')
  })

  it('a PreToolUse hook matching Edit runs for MultiEdit and NotebookEdit too, and tells them apart', async () => {
    const seen: string[] = []
    const { call, path } = project(
      { 'a.txt': 'x' },
      {
        hooks: {
          PreToolUse: [
            {
              matcher: '^Edit$',
              hooks: [
                {
                  type: 'function',
                  name: 'guard',
                  fn: (input) => {
                    seen.push(String((input as { tool_name?: unknown }).tool_name))
                    return {
                      hookSpecificOutput: {
                        hookEventName: 'PreToolUse',
                        permissionDecision: 'deny',
                        permissionDecisionReason: 'frozen',
                      },
                    }
                  },
                },
              ],
            },
          ],
        },
      },
    )
    await call('Read', { file_path: path('a.txt') })
    expect(text(await call('MultiEdit', { file_path: path('a.txt'), edits }))).toMatch(/frozen/)
    expect(text(await call('NotebookEdit', { notebook_path: path('n.ipynb'), cell_id: 'c', new_source: '' }))).toMatch(
      /frozen/,
    )
    expect(seen).toEqual(['MultiEdit', 'NotebookEdit'])
    expect(readFileSync(path('a.txt'), 'utf8')).toBe('x')
  })

  it('an Edit rule is accepted by a kernel that has MultiEdit but not Edit', () => {
    expect(() =>
      createKernel({ tools: [Read, MultiEdit], permissions: { allow: ['Edit(./src/**)'], deny: ['Edit'] } }),
    ).not.toThrow()
  })

  it('writes nothing when the file is swapped for a symlink while the app is asked', async () => {
    const outside = project({ 'a.txt': 'hello world\n' })
    let inside: { root: string; path: (p: string) => string } | undefined
    const canUseTool: CanUseTool = () => {
      const root = (inside as { root: string }).root
      rmSync(join(root, 'a.txt'))
      symlinkSync(outside.path('a.txt'), join(root, 'a.txt'))
      return { behavior: 'allow' }
    }
    const p = project({ 'a.txt': 'hello world\n' }, { permissions: { mode: 'default', allow: ['Read'] }, canUseTool })
    inside = p
    const future = new Date(1_700_000_000_000)
    utimesSync(p.path('a.txt'), future, future)
    utimesSync(outside.path('a.txt'), future, future)
    await p.call('Read', { file_path: p.path('a.txt') })
    const block: ToolResultBlock = await p.call('MultiEdit', {
      file_path: p.path('a.txt'),
      edits: [{ old_string: 'world', new_string: 'PLANTED' }],
    })
    expect(block.is_error, text(block)).toBe(true)
    expect(text(block)).toMatch(/changed since the call was approved/)
    expect(readFileSync(outside.path('a.txt'), 'utf8')).toBe('hello world\n')
  })
})
