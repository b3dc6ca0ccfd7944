import { describe, expect, it } from 'vitest'
import { heredocIsQuoted, readRedirect, redirectWrites } from '../../../src/permissions/shell/redirects.js'
import { denyMatches } from '../../../src/permissions/shell/match.js'
import { readOnlyVerdict } from '../../../src/permissions/shell/read-only.table.js'
import type { Redirect, ShellNode } from '../../../src/permissions/shell/shell.types.js'
import { ShellUnknown } from '../../../src/permissions/shell/unknown.js'
import { analysis, bash, known, line } from './analysis.js'

describe('redirectWrites', () => {
  // `>&word` duplicates a descriptor only when the word is all digits or `-`; any other word is a file
  // bash creates (checked with bash 5.2: `ls >&1a` and `ls >&a1` create those files, `>&12` creates none).
  const rows: Array<[Redirect, boolean]> = [
    [{ op: '>&', target: '1' }, false],
    [{ op: '>&', target: '12' }, false],
    [{ op: '>&', target: '-' }, false],
    [{ op: '>&', target: '1a' }, true],
    [{ op: '>&', target: 'a1' }, true],
    [{ op: '>&', target: 'out' }, true],
    // Only `>&` duplicates: `> 1` and `&> 1` write a file named 1.
    [{ op: '>', target: '1' }, true],
    [{ op: '&>', target: '1' }, true],
    [{ op: '>', target: '-' }, true],
    [{ op: '>', target: '/dev/null' }, false],
    [{ op: '<', target: 'in' }, false],
  ]
  it.each(rows)('%j writes: %s', (redirect, expected) => {
    expect(redirectWrites(redirect)).toBe(expected)
  })

  // The same through the parse: what the verdict says is what bash does to the disk.
  const verdicts: Array<[string, string | undefined]> = [
    ['ls > 1', 'ls writes 1 through >'],
    ['ls >&1a', 'ls writes 1a through >&'],
    ['ls >&a1', 'ls writes a1 through >&'],
    ['ls 2>&12', undefined],
    ['ls >&-', undefined],
  ]
  it.each(verdicts)('%j: %s', (command, reason) => {
    expect(readOnlyVerdict(command, bash())).toEqual(
      reason === undefined ? { readOnly: true } : { readOnly: false, reason },
    )
  })
})

describe('readRedirect: what the analysis reports for each form', () => {
  // [command, the redirections of its (first) command] — each is what bash opens.
  const rows: Array<[string, Redirect[]]> = [
    ['cat <<< hi', [{ op: '<<<', target: 'hi' }]],
    ['cat <<<"a b"', [{ op: '<<<', target: 'a b' }]],
    ['cat <<EOF\nx\nEOF', [{ op: '<<', target: 'EOF' }]],
    ['cat <<-EOF\n\tx\n\tEOF', [{ op: '<<-', target: 'EOF' }]],
    ['cat 3<<EOF\nx\nEOF', [{ op: '<<', target: 'EOF', fd: 3 }]],
    // Quotes in the delimiter only turn expansion off: the line that ends the body is E"F without them.
    ['cat <<\'E"F\'\nx\nE"F', [{ op: '<<', target: 'EF' }]],
    ['cat <<\\EOF\nx\nEOF', [{ op: '<<', target: 'EOF' }]],
    // Closing a descriptor has no target word at all.
    ['ls >&-', [{ op: '>&-', target: '' }]],
    ['ls 2>&-', [{ op: '>&-', target: '', fd: 2 }]],
  ]
  it.each(rows)('%j redirects %j', (command, redirects) => {
    expect(known(command)[0]?.redirects).toEqual(redirects)
  })

  // `cat <<EOF x y` runs `cat x y`: the grammar files the words under the here-document.
  it('gives the words after a here-document to the command', () => {
    expect(known('cat <<EOF x y\nbody\nEOF').map(line)).toEqual(['cat x y'])
  })
})

/** A node the way the grammar adapter builds them; offsets are not read by these functions. */
function node(type: string, text: string, children: ShellNode[] = [], extra: Partial<ShellNode> = {}): ShellNode {
  return { type, text, start: 0, end: text.length, named: true, missing: false, field: undefined, children, ...extra }
}
const token = (text: string): ShellNode => node(text, text, [], { named: false })

function reasonOf(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    if (error instanceof ShellUnknown) return error.message
    throw error
  }
  throw new Error('expected the analysis to stop')
}

describe('readRedirect and heredocIsQuoted on trees a newer grammar might build', () => {
  // The grammar in use always gives an operator, a delimiter and a word; these guards keep a tree
  // that lacks one from crashing the analysis or from being read as some other redirection.
  it('refuses a node that is no redirection', () => {
    expect(reasonOf(() => readRedirect(node('word', 'x')))).toBe('the redirection "x" is not analysed (word)')
  })

  it('refuses a file redirection without an operator', () => {
    expect(
      reasonOf(() => readRedirect(node('file_redirect', 'f', [node('word', 'f', [], { field: 'destination' })]))),
    ).toBe('the redirection "f" has no operator')
  })

  it('reads a file redirection without a target as an empty one', () => {
    expect(readRedirect(node('file_redirect', '>', [token('>')]))).toEqual({
      redirect: { op: '>', target: '' },
      extraArgs: [],
    })
  })

  it('reads a here-document without operator or delimiter as << with an empty one', () => {
    const heredoc = node('heredoc_redirect', 'x', [node('heredoc_body', 'x')])
    expect(readRedirect(heredoc)).toEqual({ redirect: { op: '<<', target: '' }, extraArgs: [] })
    expect(heredocIsQuoted(heredoc)).toBe(false)
  })

  // bash takes `3<<< hi` as a here-string on descriptor 3 (this grammar cannot parse it yet).
  it('reads the descriptor of a here-string apart from its word', () => {
    const herestring = node('herestring_redirect', '3<<< hi', [
      node('file_descriptor', '3'),
      token('<<<'),
      node('word', 'hi'),
    ])
    expect(readRedirect(herestring)).toEqual({ redirect: { op: '<<<', target: 'hi', fd: 3 }, extraArgs: [] })
  })

  it('reads a here-string without a word as an empty one', () => {
    expect(readRedirect(node('herestring_redirect', '<<<', [token('<<<')]))).toEqual({
      redirect: { op: '<<<', target: '' },
      extraArgs: [],
    })
  })
})

describe('a descriptor before <<<', () => {
  // The grammar has no descriptor for `<<<`: `git push 0<<<x` came back as `git push 0` with a
  // here-string, but bash 5.2 runs `git push` (printf '[%s]' a 0<<<hi prints only [a]), so an exact
  // deny rule `git push` did not match a command that runs `git push`. Failed before the fix.
  it('reads the number before <<< as a descriptor, not an argument', () => {
    expect(known('git push 0<<<x').map(line)).toEqual(['git push'])
    expect(denyMatches('git push', analysis('git push 0<<<x'))).toBe(true)
  })
})
