/**
 * Redirections: reading them out of the tree, and deciding which of them write a file.
 */
import type { Redirect, ShellNode } from './shell.types.js'
import { fail } from './unknown.js'
import { resolveWord, wordText } from './words.js'
import type { Word } from './words.js'

/** A redirection, and words the grammar attached to it that bash gives to the command instead. */
export interface ReadRedirect {
  readonly redirect: Redirect
  /** `ls > f a b` runs `ls a b`: the grammar files `a` and `b` under the redirection. */
  readonly extraArgs: readonly Word[]
}

/** Targets that discard or pass output through rather than writing a file. */
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr'])
const WRITING_OPS = new Set(['>', '>>', '>|', '&>', '&>>', '<>'])

/**
 * Whether the redirection writes (creates, truncates or appends to) a file. `>/dev/null`,
 * descriptor duplication (`2>&1`, `>&2`), closing (`2>&-`) and every input form do not.
 */
export function redirectWrites(redirect: Redirect): boolean {
  if (redirect.op === '>&' && /^(\d+|-)$/.test(redirect.target)) return false
  if (!WRITING_OPS.has(redirect.op) && redirect.op !== '>&') return false
  return !HARMLESS_TARGETS.has(redirect.target)
}

/** Reads a `file_redirect`, `herestring_redirect` or `heredoc_redirect` node. */
export function readRedirect(node: ShellNode): ReadRedirect {
  switch (node.type) {
    case 'file_redirect':
      return readFileRedirect(node)
    case 'herestring_redirect':
      return { redirect: withFd(node, { op: '<<<', target: targetOf(node.children.filter(isWordish)) }), extraArgs: [] }
    case 'heredoc_redirect':
      return readHeredoc(node)
    default:
      return fail(`the redirection ${JSON.stringify(node.text)} is not analysed (${node.type})`)
  }
}

function readFileRedirect(node: ShellNode): ReadRedirect {
  const op = node.children.find((child) => !child.named)?.type
  if (op === undefined) fail(`the redirection ${JSON.stringify(node.text)} has no operator`)
  const destinations = node.children.filter((child) => child.field === 'destination')
  const [first, ...rest] = destinations.map(resolveWord)
  // A computed target keeps its raw text, which is never a harmless one: it counts as a write.
  const target = first === undefined ? '' : wordText(first)
  return { redirect: withFd(node, { op, target }), extraArgs: rest }
}

function readHeredoc(node: ShellNode): ReadRedirect {
  const op = node.children.find((child) => child.type === '<<' || child.type === '<<-')?.type ?? '<<'
  const start = node.children.find((child) => child.type === 'heredoc_start')
  const delimiter = start === undefined ? '' : start.text.replace(/['"\\]/g, '')
  const extraArgs = node.children.filter((child) => child.field === 'argument').map(resolveWord)
  return { redirect: withFd(node, { op, target: delimiter }), extraArgs }
}

/** Whether the heredoc's delimiter is quoted, which turns off expansion in its body. */
export function heredocIsQuoted(node: ShellNode): boolean {
  const start = node.children.find((child) => child.type === 'heredoc_start')
  return start !== undefined && /['"\\]/.test(start.text)
}

function withFd(node: ShellNode, redirect: Omit<Redirect, 'fd'>): Redirect {
  const descriptor = node.children.find((child) => child.type === 'file_descriptor')
  return descriptor === undefined ? redirect : { ...redirect, fd: Number(descriptor.text) }
}

function isWordish(node: ShellNode): boolean {
  return node.named && node.type !== 'file_descriptor'
}

function targetOf(nodes: readonly ShellNode[]): string {
  const [first] = nodes
  return first === undefined ? '' : wordText(resolveWord(first))
}
