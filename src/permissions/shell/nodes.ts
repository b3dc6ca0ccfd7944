/**
 * Small helpers over the plain syntax tree.
 */
import type { ShellNode } from './shell.types.js'

/** Leaves the grammar does not parse inside, where a `$(` or backquote would go unseen. */
export const OPAQUE_LEAVES = new Set(['word', 'string_content', 'regex', 'extglob_pattern', 'heredoc_content'])

export function named(node: ShellNode): ShellNode[] {
  return node.children.filter((child) => child.named)
}

export function fieldOf(node: ShellNode, field: string): ShellNode[] {
  return node.children.filter((child) => child.field === field)
}

export function snippet(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)
}

/**
 * An unescaped backquote, `$(`, `${` or `$[` in text the grammar treated as plain. Bash may
 * expand such text where the grammar does not (a `[[ =~ ]]` regex, single quotes inside
 * arithmetic), and `${x@P}`, `${!x}` or `$[x]` there can run commands.
 */
export function hasUnparsedSubstitution(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i)
    if (ch === '\\') i++
    else if (ch === '`' || (ch === '$' && '([{'.includes(text.charAt(i + 1)) && text.charAt(i + 1) !== '')) return true
  }
  return false
}

/** The shell names in a piece of arithmetic text (`a[i]+b` names a, i and b; `0x1f` names none). */
export function identifiersIn(text: string): string[] {
  return text.match(/(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*/g) ?? []
}
