import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { realPathOf } from '../../src/adapters/real-path.js'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'tk-real-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('realPathOf', () => {
  it('resolves symlinks in the existing prefix, keeps the missing tail, follows dangling links', () => {
    mkdirSync(join(root, 'inside'))
    mkdirSync(join(root, 'outside'))
    symlinkSync(join(root, 'outside'), join(root, 'inside', 'link'))
    symlinkSync(join(root, 'outside', 'new.txt'), join(root, 'inside', 'dangling'))
    symlinkSync('..', join(root, 'inside', 'up'))
    expect(realPathOf(join(root, 'inside', 'link', 'x', 'y.txt'))).toBe(join(root, 'outside', 'x', 'y.txt'))
    expect(realPathOf(join(root, 'inside', 'dangling'))).toBe(join(root, 'outside', 'new.txt'))
    expect(realPathOf(join(root, 'inside', 'up', 'outside'))).toBe(join(root, 'outside'))
    expect(realPathOf(join(root, 'inside', 'a', '..', '..', 'outside'))).toBe(join(root, 'outside'))
    expect(realPathOf(join(root, 'missing', 'deep'))).toBe(join(root, 'missing', 'deep'))
  })

  it('a loop of links is an error, for the caller to fail closed on', () => {
    symlinkSync(join(root, 'loop-b'), join(root, 'loop-a'))
    symlinkSync(join(root, 'loop-a'), join(root, 'loop-b'))
    expect(() => realPathOf(join(root, 'loop-a', 'x'))).toThrow(/too many levels of symbolic links/)
  })
})
