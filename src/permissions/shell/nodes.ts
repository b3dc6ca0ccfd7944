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

/** An unescaped backquote or `$(` in text the grammar treated as plain. */
export function hasUnparsedSubstitution(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i)
    if (ch === '\\') i++
    else if (ch === '`' || (ch === '$' && text.charAt(i + 1) === '(')) return true
  }
  return false
}
