/**
 * Paths judged where they resolve, on their own: a PathJudge whose realPath is a table (a link
 * from the working directory out of it, a loop), so each rule of paths.ts is seen apart.
 */
import { describe, expect, it } from 'vitest'
import { candidates, insideWorkingDir, protectedReason, type PathJudge } from '../../src/permissions/paths.js'

const links: Record<string, string> = {
  '/work/proj/out': '/etc/passwd', // a link inside cwd pointing out of it
  '/work/link-to-proj/src/a.ts': '/work/proj/src/a.ts', // a path outside cwd pointing into it
  '/work/proj/self': '/work/proj',
}
const judge = (over: Partial<PathJudge> = {}): PathJudge => ({
  cwd: '/work/proj',
  realPath: (path) => {
    if (path === '/work/proj/loop') throw new Error('ELOOP')
    return links[path] ?? path
  },
  protectedNames: ['.git'],
  protectedDirs: ['/work/proj/.toolkernel'],
  ...over,
})

describe('candidates', () => {
  it('gives the lexical absolute path and the real one, or undefined when it cannot be resolved', () => {
    expect(candidates(judge(), 'src/../out')).toEqual({ lexical: '/work/proj/out', real: '/etc/passwd' })
    expect(candidates(judge(), '/work/proj/./src/a.ts')).toEqual({
      lexical: '/work/proj/src/a.ts',
      real: '/work/proj/src/a.ts',
    })
    expect(candidates(judge(), 'loop')).toEqual({ lexical: '/work/proj/loop', real: undefined })
  })
})

describe('insideWorkingDir', () => {
  it('needs both the path as written and where it points inside cwd, and never cwd itself', () => {
    expect(insideWorkingDir(judge(), 'src/a.ts')).toBe(true)
    expect(insideWorkingDir(judge(), 'out')).toBe(false) // written inside, points outside
    expect(insideWorkingDir(judge(), '/work/link-to-proj/src/a.ts')).toBe(false) // written outside
    expect(insideWorkingDir(judge(), '.')).toBe(false)
    expect(insideWorkingDir(judge(), 'self')).toBe(false) // a link inside cwd to cwd itself
    expect(insideWorkingDir(judge(), 'loop')).toBe(false) // fail closed
  })

  it("compares where a path points with where cwd really is (cwd may be a link's name)", () => {
    const viaLink = judge({
      cwd: '/work/proj-link',
      realPath: (path) => path.replace(/^\/work\/proj-link/, '/work/proj'),
    })
    expect(insideWorkingDir(viaLink, 'src/a.ts')).toBe(true)
    const unresolvable = judge({
      cwd: '/work/proj',
      realPath: (path) => {
        if (path === '/work/proj') throw new Error('EACCES')
        return path
      },
    })
    // cwd itself cannot be resolved: its name stands for it.
    expect(insideWorkingDir(unresolvable, 'src/a.ts')).toBe(true)
  })
})

describe('protectedReason', () => {
  it('names a protected directory found in the path as written or where it points', () => {
    expect(protectedReason(judge(), '.git/config')).toBe(
      '.git/config is inside .git, which is protected: changes there always ask first',
    )
    expect(protectedReason(judge(), 'sub/.git/HEAD')).toMatch(/inside \.git, which is protected/)
    const gitLink = judge({ realPath: (path) => (path === '/work/proj/cfg' ? '/work/proj/.git/config' : path) })
    expect(protectedReason(gitLink, 'cfg')).toBe(
      'cfg is inside .git, which is protected: changes there always ask first',
    )
    expect(protectedReason(judge(), '.toolkernel/log.jsonl')).toBe(
      '.toolkernel/log.jsonl is inside /work/proj/.toolkernel, which toolkernel keeps for itself: changes there always ask first',
    )
    expect(protectedReason(judge(), 'src/a.ts')).toBeUndefined()
    expect(protectedReason(judge(), '.gitignore')).toBeUndefined()
  })

  it('fails closed when where the path points cannot be found', () => {
    expect(protectedReason(judge(), 'loop')).toBe('where loop points cannot be resolved (a loop of symbolic links?)')
  })
})
