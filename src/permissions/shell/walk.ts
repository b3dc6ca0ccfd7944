/**
 * The walker: every node of the tree is either a statement (whose simple commands are emitted),
 * a word (scanned for the substitutions and arithmetic inside it), or a reason to stop. A node
 * type the walker does not know is unknown, so a newer grammar cannot slip a construct past it.
 */
import { emitCommand } from './emit.js'
import { reparsedArrayHazard } from './hazards.js'
import { readRedirect } from './redirects.js'
import type { ReadRedirect } from './redirects.js'
import {
  visitArithmetic,
  visitExpansion,
  visitHeredoc,
  visitSubscript,
  visitSubstitution,
  visitTest,
} from './evaluation.js'
import { fieldOf, hasUnparsedSubstitution, named, OPAQUE_LEAVES, snippet } from './nodes.js'
import { pushCommand, withRedirects } from './scope.js'
import type { Scope } from './scope.js'
import type { ShellNode } from './shell.types.js'
import { fail } from './unknown.js'
import { hasUnescapedNewline, isDynamic, literalWord, resolveWord, wordText } from './words.js'
import type { Word, WordAssignment } from './words.js'

/** Statements whose children are walked as they are. */
const CONTAINERS = new Set([
  'program',
  'list',
  'pipeline',
  'subshell',
  'compound_statement',
  'negated_command',
  'if_statement',
  'elif_clause',
  'else_clause',
  'while_statement',
  'case_statement',
  'case_item',
  'do_group',
  'process_substitution',
])

/** Word-level nodes: nothing runs in them except the substitutions they contain. */
const SCANNED = new Set([
  'word',
  'string',
  'raw_string',
  'ansi_c_string',
  'concatenation',
  'number',
  'simple_expansion',
  'string_content',
  'brace_expression',
  'extglob_pattern',
  'regex',
  'variable_name',
  'special_variable_name',
  'test_operator',
  'file_descriptor',
  'heredoc_start',
  'heredoc_end',
  'heredoc_content',
  'array',
  'translated_string',
  'binary_expression',
  'unary_expression',
  'ternary_expression',
  'postfix_expression',
  'parenthesized_expression',
  'command_name',
  'file_redirect',
  'herestring_redirect',
])

type Visitor = (node: ShellNode, scope: Scope) => void

const VISITORS: Readonly<Record<string, Visitor>> = {
  command: (node, scope) => visitCommand(node, scope, []),
  redirected_statement: visitRedirected,
  variable_assignment: (node, scope) => visitAssignments([node], node, scope),
  variable_assignments: (node, scope) => visitAssignments(named(node), node, scope),
  declaration_command: visitDeclaration,
  unset_command: visitDeclaration,
  function_definition: visitFunction,
  test_command: visitTest,
  for_statement: visitFor,
  c_style_for_statement: visitCStyleFor,
  command_substitution: visitSubstitution,
  arithmetic_expansion: (node, scope) => visitArithmetic(node, scope),
  expansion: visitExpansion,
  subscript: visitSubscript,
  heredoc_redirect: visitHeredoc,
  comment: () => undefined,
}

/** Nodes of one simple command, between whose parts bash never allows an unescaped line break. */
const ONE_LINE = new Set([
  'command',
  'declaration_command',
  'unset_command',
  'variable_assignments',
  'variable_assignment',
  'redirected_statement',
  'file_redirect',
  'herestring_redirect',
  'concatenation',
])

/**
 * A line break ends a simple command, but the grammar sometimes reads one as a space between
 * words (`a | b |& c` newline `rm x > f` comes back as `c` with the arguments `rm x`).
 */
function checkOneLine(node: ShellNode): void {
  for (let i = 1; i < node.children.length; i++) {
    const before = node.children[i - 1]
    const after = node.children[i]
    if (before === undefined || after === undefined) continue
    const gap = node.text.slice(before.end - node.start, after.start - node.start)
    if (hasUnescapedNewline(gap)) fail(`the grammar joined two lines into one command: ${snippet(node.text)}`)
  }
}

/** Walks any node. */
export function visit(node: ShellNode, scope: Scope): void {
  if (!node.named) return
  if (ONE_LINE.has(node.type)) checkOneLine(node)
  const visitor = VISITORS[node.type]
  if (visitor !== undefined) return visitor(node, scope)
  if (node.type === 'compound_statement' && node.children[0]?.type === '((') return visitArithmetic(node, scope)
  if (CONTAINERS.has(node.type)) return visitChildren(node, scope)
  if (!SCANNED.has(node.type)) fail(`the shell syntax ${node.type} (${snippet(node.text)}) is not analysed`)
  if (node.children.length === 0 && OPAQUE_LEAVES.has(node.type) && hasUnparsedSubstitution(node.text)) {
    fail(`the text ${snippet(node.text)} contains a substitution the parser did not read`)
  }
  if (node.type === 'word' && hasUnescapedNewline(node.text)) {
    fail(`the grammar read a line break into the word ${snippet(node.text)}`)
  }
  visitChildren(node, scope)
}

function visitChildren(node: ShellNode, scope: Scope): void {
  for (const child of node.children) visit(child, scope)
}

function visitCommand(node: ShellNode, scope: Scope, outer: readonly ReadRedirect[]): void {
  checkOneLine(node)
  const nameNode = fieldOf(node, 'name')[0]
  const nameWord = nameNode === undefined ? undefined : commandWord(nameNode)
  // The grammar has no descriptor for `<<<`: in `git push 0<<<x` it reads the 0 as an argument,
  // where bash reads it as the descriptor the here-string goes to (and runs `git push`).
  const hereStrings = fieldOf(node, 'redirect').filter((r) => r.type === 'herestring_redirect')
  const descriptor = (arg: ShellNode): boolean => /^\d+$/.test(arg.text) && hereStrings.some((r) => r.start === arg.end)
  const args = fieldOf(node, 'argument')
    .filter((arg) => !descriptor(arg))
    .map((arg) => {
      if (!arg.named) fail(`the word ${snippet(arg.text)} in ${snippet(node.text)} is not analysed (a $"…" string?)`)
      return resolveWord(arg)
    })
  const own = fieldOf(node, 'redirect').flatMap(readRedirectDeep)
  const assignments = node.children.filter((child) => child.type === 'variable_assignment').map(readAssignment)
  for (const child of node.children) visitPart(child, scope)
  const redirects = [...own, ...outer]
  const words = nameWord === undefined ? [] : [nameWord, ...args, ...redirects.flatMap((r) => r.extraArgs)]
  emitCommand(scope, { words, assignments, redirects: redirects.map((r) => r.redirect), text: node.text })
}

function visitPart(child: ShellNode, scope: Scope): void {
  if (child.type === 'variable_assignment') return visitAssignmentParts(child, scope)
  if (child.field === 'redirect') return visit(child, scope)
  visit(child, scope)
}

function commandWord(nameNode: ShellNode): Word {
  const [inner] = named(nameNode)
  if (inner === undefined || inner.missing) fail(`the command ${snippet(nameNode.text)} has no name`)
  return resolveWord(inner)
}

function readAssignment(node: ShellNode): WordAssignment {
  const name = fieldOf(node, 'name')[0]?.text ?? fail(`the assignment ${snippet(node.text)} has no name`)
  const valueNode = fieldOf(node, 'value')[0]
  if (valueNode === undefined) return { name, value: '', dynamic: false }
  if (valueNode.type === 'array') return { name, value: valueNode.text, dynamic: true }
  const word = resolveWord(valueNode)
  return { name, value: wordText(word), dynamic: isDynamic(word) }
}

function visitAssignmentParts(node: ShellNode, scope: Scope): void {
  for (const child of node.children) {
    if (child.field === 'name' && child.type === 'subscript') visitSubscript(child, scope)
    else if (child.field !== 'name') visit(child, scope)
  }
}

function visitAssignments(nodes: readonly ShellNode[], statement: ShellNode, scope: Scope): void {
  for (const node of nodes) visitAssignmentParts(node, scope)
  emitCommand(scope, { words: [], assignments: nodes.map(readAssignment), redirects: [], text: statement.text })
}

/** `export A=1 b`, `local x`, `unset y`: a command named after the keyword. */
function visitDeclaration(node: ShellNode, scope: Scope): void {
  const keyword = node.children.find((child) => !child.named)?.type ?? fail(`${snippet(node.text)} has no keyword`)
  const words: Word[] = [literalWord(keyword)]
  const assignments: WordAssignment[] = []
  for (const child of named(node)) {
    if (child.type === 'variable_assignment') {
      const assignment = readAssignment(child)
      const written = fieldOf(child, 'value')[0]
      if (written !== undefined && written.type !== 'array') {
        const again = reparsedArrayHazard(keyword, child.text, `${assignment.name}=${assignment.value}`)
        if (again !== undefined) fail(again)
      }
      assignments.push(assignment)
      visitAssignmentParts(child, scope)
      continue
    }
    words.push(child.type === 'variable_name' ? literalWord(child.text) : resolveWord(child))
    visit(child, scope)
  }
  emitCommand(scope, { words, assignments, redirects: [], text: node.text })
}

/**
 * Redirections on a statement apply to every command in it (`{ a; b; } > f`). A statement of
 * redirections alone (`> f`, `2>f`, `< in > out`) runs no program but bash still opens every
 * target (creating or truncating it): it is a command with no name and those redirections.
 */
function visitRedirected(node: ShellNode, scope: Scope): void {
  const redirectNodes = fieldOf(node, 'redirect')
  const read = redirectNodes.flatMap(readRedirectDeep)
  const body = fieldOf(node, 'body')[0]
  if (body?.type === 'command') visitCommand(body, scope, read)
  else if (body !== undefined) visitUnder(body, scope, read)
  else visitBareRedirects(node, scope, read)
  for (const redirect of redirectNodes) visit(redirect, scope)
}

function visitBareRedirects(node: ShellNode, scope: Scope, read: readonly ReadRedirect[]): void {
  if (read.some((r) => r.extraArgs.length > 0)) fail(`the redirection in ${snippet(node.text)} has extra words`)
  emitCommand(scope, { words: [], assignments: [], redirects: read.map((r) => r.redirect), text: node.text })
}

/** Walks a compound body under redirections; a body that runs nothing still keeps them. */
function visitUnder(body: ShellNode, scope: Scope, read: readonly ReadRedirect[]): void {
  if (read.some((r) => r.extraArgs.length > 0)) fail(`the redirection in ${snippet(body.text)} has extra words`)
  const redirects = read.map((r) => r.redirect)
  const before = scope.shared.commands.length
  visit(body, withRedirects(scope, redirects))
  if (scope.shared.commands.length === before && redirects.length > 0) {
    pushCommand(scope, {
      words: [],
      assignments: [],
      redirects,
      text: body.text,
      via: [],
      wrapperLines: [],
      openArgs: false,
    })
  }
}

/** A heredoc's redirection may carry redirections of its own (`cat <<EOF > out`). */
function readRedirectDeep(node: ShellNode): ReadRedirect[] {
  const nested = node.type === 'heredoc_redirect' ? fieldOf(node, 'redirect').flatMap(readRedirectDeep) : []
  return [readRedirect(node), ...nested]
}

function visitFunction(node: ShellNode, scope: Scope): void {
  // A defined function's body counts as executed: it may be called under any name, any time.
  const redirectNodes = fieldOf(node, 'redirect')
  const body = fieldOf(node, 'body')[0] ?? fail(`the function ${snippet(node.text)} has no body`)
  visitUnder(body, scope, redirectNodes.flatMap(readRedirectDeep))
  for (const redirect of redirectNodes) visit(redirect, scope)
}

function visitFor(node: ShellNode, scope: Scope): void {
  for (const variable of fieldOf(node, 'variable')) scope.shared.assigned.add(variable.text)
  for (const child of node.children) if (child.field !== 'variable') visit(child, scope)
}

function visitCStyleFor(node: ShellNode, scope: Scope): void {
  for (const child of node.children) {
    if (child.field === 'body') visit(child, scope)
    else visitArithmetic(child, scope)
  }
}
