// The walker's scope, alone (scope.ts): its limits (nesting, commands), the name a command word
// is matched by, and what a nested script inherits (assignments, redirections).
import { describe, expect, it } from 'vitest'
import { MAX_COMMANDS, MAX_NESTING } from '../../../src/permissions/shell/scope.js'
import { analysis, known, line } from './analysis.js'

/** `ls` run by `depth` nested `bash -c`, each script in ANSI-C quotes (which grow slowest). */
function nested(depth: number): string {
  let script = 'ls'
  for (let level = 0; level < depth; level++)
    script = `bash -c $'${script.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
  return script
}

describe('limits', () => {
  it(`scripts nested ${MAX_NESTING} deep are analysed; one more is unknown`, () => {
    expect(known(nested(MAX_NESTING)).map(line)).toEqual(['ls'])
    expect(analysis(nested(MAX_NESTING + 1))).toMatchObject({
      kind: 'unknown',
      reason: `scripts nested more than ${MAX_NESTING} deep are not analysed`,
    })
  })

  it(`${MAX_COMMANDS} simple commands are analysed; one more is unknown`, () => {
    expect(known(Array(MAX_COMMANDS).fill('ls').join('; '))).toHaveLength(MAX_COMMANDS)
    expect(
      analysis(
        Array(MAX_COMMANDS + 1)
          .fill('ls')
          .join('; '),
      ),
    ).toMatchObject({
      kind: 'unknown',
      reason: `more than ${MAX_COMMANDS} simple commands are not analysed`,
    })
  })
})

describe('the name a command is matched by', () => {
  it.each([
    ['/bin/rm x', 'rm', '/bin/rm'],
    ['~/bin/tool x', 'tool', '~/bin/tool'],
    ['./tool x', './tool', './tool'],
    ['tool x', 'tool', 'tool'],
  ])('%j is matched as %j (written %j)', (command, name, written) => {
    expect(known(command)[0]).toMatchObject({ name, writtenName: written })
  })
})

describe('what a command carries from where it is', () => {
  it('an argument computed at run time makes it dynamic; literal ones do not', () => {
    expect(known('rm a "$x"')[0]?.dynamic).toBe(true)
    expect(known('rm a b')[0]?.dynamic).toBe(false)
  })

  it("a nested script's commands keep the redirections around it, innermost first", () => {
    expect(known("{ bash -c 'ls > in'; } > out")[0]?.redirects.map((r) => r.target)).toEqual(['in', 'out'])
  })

  it('a command keeps the assignments before it, its wrapper’s too', () => {
    expect(known('A=1 env B=2 ls')[0]?.assignments).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
    ])
  })
})
