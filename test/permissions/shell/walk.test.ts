import { describe, expect, it } from 'vitest'
import { analyzeShell } from '../../../src/permissions/shell/analyze.js'
import { readOnlyVerdict } from '../../../src/permissions/shell/read-only.table.js'
import type { BashParser, Redirect, ShellNode } from '../../../src/permissions/shell/shell.types.js'
import { analysis, bash, known, line } from './analysis.js'

describe('walk: redirections reach the commands they apply to', () => {
  // A redirection the walk drops is a write the permission check never sees.
  const rows: Array<[string, Redirect[][]]> = [
    // The grammar files a here-string under the command itself, not under a redirected statement.
    ['cat <<< hi', [[{ op: '<<<', target: 'hi' }]]],
    // `cat <<EOF > out` writes out: the grammar nests the `> out` inside the here-document's node.
    [
      'cat <<EOF > out\nx\nEOF',
      [
        [
          { op: '<<', target: 'EOF' },
          { op: '>', target: 'out' },
        ],
      ],
    ],
    // A function's redirections apply to every run of its body.
    ['f() { ls; } > out', [[{ op: '>', target: 'out' }]]],
  ]
  it.each(rows)('%j redirects %j', (command, redirects) => {
    expect(known(command).map((cmd) => cmd.redirects)).toEqual(redirects)
  })

  it('sees the write nested in a here-document', () => {
    expect(readOnlyVerdict('cat <<EOF > out\nx\nEOF', bash())).toEqual({
      readOnly: false,
      reason: 'cat writes out through >',
    })
  })

  // `[[ … ]] > out` runs no program but still creates out: it is a command with no name, no more.
  it('reports a statement that runs nothing with its redirections and nothing else', () => {
    expect(known('[[ -f x ]] > out')).toEqual([
      {
        name: '',
        writtenName: '',
        args: [],
        assignments: [],
        redirects: [{ op: '>', target: 'out' }],
        text: '[[ -f x ]]',
        via: [],
        wrapperLines: [],
        dynamic: false,
        openArgs: false,
        argExpansions: [],
      },
    ])
  })

  // Without a redirection there is nothing to report for such a body.
  it('reports nothing for a function whose body runs no program', () => {
    expect(analysis('f() { [[ -f x ]]; }')).toEqual({ kind: 'known', commands: [], source: 'f() { [[ -f x ]]; }' })
  })
})

describe('walk: words, assignments and declarations', () => {
  // A statement of assignments is a command with no name, no words and no redirections.
  it('reports a statement of assignments as exactly its assignments', () => {
    expect(known('x=1 y=2')).toEqual([
      {
        name: '',
        writtenName: '',
        args: [],
        assignments: [
          { name: 'x', value: '1' },
          { name: 'y', value: '2' },
        ],
        redirects: [],
        text: 'x=1 y=2',
        via: [],
        wrapperLines: [],
        dynamic: false,
        openArgs: false,
        argExpansions: [],
      },
    ])
  })

  it('reads an empty assignment', () => {
    expect(known('X= ls')[0]?.assignments).toEqual([{ name: 'X', value: '' }])
  })

  // `unset "x"` unsets x: the quotes go, as for any other word.
  it('resolves the quotes of a declaration operand', () => {
    expect(known('unset "x"').map(line)).toEqual(['unset x'])
  })
})

describe('walk: unknown, with the exact reason', () => {
  // [command, reason]: each is a tree that misstates what bash runs, or a value computed at run time.
  const rows: Array<[string, string]> = [
    ['echo $"hello"', 'the word "$" in "echo $\\"hello\\"" is not analysed (a $"…" string?)'],
    // The grammar files the `> f` of the next line under the pipeline's last part.
    ['ls | ls |& ls\n> f', 'the grammar joined two lines into one command: "ls |& ls\\n> f"'],
    // A word of a `for` list is never resolved as an argument: the walk itself must see the line break.
    ['for f in a\n\\rm x; do :; done', 'the grammar read a line break into the word "\\n\\\\rm"'],
    // bash passes the text `(rm x)` in the environment, and git runs it through sh.
    ['GIT_EDITOR=(rm x) git commit', 'GIT_EDITOR holds a command and its value is computed at run time'],
    // The grammar files `rm x` as further targets; bash refuses the line.
    ['{ ls; } > f rm x', 'the redirection in "{ ls; }" has extra words'],
    ['{ ls; } <<EOF x\nbody\nEOF', 'the redirection in "{ ls; }" has extra words'],
    // The subscript of an assignment is arithmetic: x's value would be evaluated as code.
    ['a[x]=1', 'bash evaluates the value of x as arithmetic or a name, and it may name a variable the command sets'],
    [
      'local a[x]=1',
      'bash evaluates the value of x as arithmetic or a name, and it may name a variable the command sets',
    ],
  ]
  it.each(rows)('%j is unknown: %s', (command, reason) => {
    expect(analysis(command)).toEqual({ kind: 'unknown', reason, source: command })
  })
})

/** A node as the grammar adapter builds it, at `start` in the source. */
function node(
  type: string,
  start: number,
  text: string,
  children: ShellNode[] = [],
  extra: Partial<ShellNode> = {},
): ShellNode {
  return {
    type,
    text,
    start,
    end: start + text.length,
    named: true,
    missing: false,
    field: undefined,
    children,
    ...extra,
  }
}
const token = (text: string, start: number): ShellNode => node(text, start, text, [], { named: false })

/** A grammar that returns this tree, whatever the source. */
function grammarOf(statement: ShellNode): BashParser {
  const root = node('program', 0, statement.text, [statement])
  return { parse: () => ({ root, hasError: false }) }
}

describe('walk: trees a newer grammar might build', () => {
  // The grammar in use never builds these; the guards make a changed grammar unknown, not a crash
  // or a silently dropped command.
  const unknowns: Array<[string, ShellNode, string]> = [
    [
      'a node type the walk does not know',
      node('future_syntax', 0, 'x'),
      'the shell syntax future_syntax ("x") is not analysed',
    ],
    [
      'a command name with no word',
      node('command', 0, 'x', [node('command_name', 0, 'x', [], { field: 'name' })]),
      'the command "x" has no name',
    ],
    [
      'an assignment with no name',
      node('variable_assignment', 0, '=', [token('=', 0)]),
      'the assignment "=" has no name',
    ],
    ['a declaration with no keyword', node('declaration_command', 0, 'x'), '"x" has no keyword'],
    [
      'a function with no body',
      node('function_definition', 0, 'f', [node('word', 0, 'f', [], { field: 'name' })]),
      'the function "f" has no body',
    ],
    [
      'bare redirections with extra words',
      node('redirected_statement', 0, '<g >f a', [
        node('file_redirect', 0, '<g', [token('<', 0), node('word', 1, 'g', [], { field: 'destination' })], {
          field: 'redirect',
        }),
        node(
          'file_redirect',
          3,
          '>f a',
          [
            token('>', 3),
            node('word', 4, 'f', [], { field: 'destination' }),
            node('word', 6, 'a', [], { field: 'destination' }),
          ],
          { field: 'redirect' },
        ),
      ]),
      'the redirection in "<g >f a" has extra words',
    ],
  ]
  it.each(unknowns)('%s is unknown', (_, statement, reason) => {
    expect(analyzeShell(statement.text, grammarOf(statement))).toEqual({
      kind: 'unknown',
      reason,
      source: statement.text,
    })
  })

  it('walks an empty group without looking for an arithmetic opener', () => {
    const statement = node('compound_statement', 0, '')
    expect(analyzeShell('{ }', grammarOf(statement))).toEqual({ kind: 'known', commands: [], source: '{ }' })
  })

  it('reads a command with redirections and no name as a command with no name', () => {
    const statement = node('command', 0, '>f', [
      node('file_redirect', 0, '>f', [token('>', 0), node('word', 1, 'f', [], { field: 'destination' })], {
        field: 'redirect',
      }),
    ])
    const result = analyzeShell('>f', grammarOf(statement))
    expect(result).toMatchObject({
      kind: 'known',
      commands: [{ name: '', args: [], redirects: [{ op: '>', target: 'f' }] }],
    })
  })
})
