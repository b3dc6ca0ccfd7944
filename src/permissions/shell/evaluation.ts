/**
 * Where bash evaluates text as code: command substitutions (re-read inside backquotes),
 * arithmetic (whose variables' values are themselves evaluated), `${!x}` and `${x@P}`, test
 * operators, and the bodies of unquoted here-documents.
 */
import { fieldOf, hasUnparsedSubstitution, OPAQUE_LEAVES, snippet } from './nodes.js'
import { heredocIsQuoted, readRedirect } from './redirects.js'
import { deeper, pushCommand } from './scope.js'
import type { Scope } from './scope.js'
import type { ShellNode } from './shell.types.js'
import { fail } from './unknown.js'

function visitChildren(node: ShellNode, scope: Scope): void {
  for (const child of node.children) scope.shared.visit(child, scope)
}

/**
 * `$(…)` and backquotes. Inside backquotes bash first undoes `\\`, `` \` `` and `\$`, so such a
 * body is re-parsed. `$(<file)` runs no command but reads the file: it is reported as a command
 * with no name and that input redirection, so the read-only verdict sees what is read.
 */
export function visitSubstitution(node: ShellNode, scope: Scope): void {
  const backquoted = node.children[0]?.type === '`'
  if (backquoted && node.text.includes('\\')) {
    return scope.shared.analyzeSource(unescapeBackquoted(node.text.slice(1, -1)), deeper(scope))
  }
  visitChildren(node, scope)
  const reads = fieldOf(node, 'redirect').map((child) => readRedirect(child).redirect)
  if (reads.length > 0) {
    pushCommand(scope, {
      words: [],
      assignments: [],
      redirects: reads,
      text: node.text,
      via: [],
      wrapperLines: [],
      openArgs: false,
    })
  }
}

/** Undoes the escapes bash removes inside backquotes: a backslash before `\`, a backquote or `$`. */
export function unescapeBackquoted(text: string): string {
  return text.replace(/\\([\\`$])/g, '$1')
}

/** Test expressions: arithmetic comparisons evaluate their operands; `-v a[$(x)]` evaluates. */
const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge'])

export function visitTest(node: ShellNode, scope: Scope): void {
  const walk = (expression: ShellNode): void => {
    const operator = fieldOf(expression, 'operator')[0]?.text
    if (expression.type === 'binary_expression' && operator !== undefined && ARITHMETIC_TESTS.has(operator)) {
      for (const side of [...fieldOf(expression, 'left'), ...fieldOf(expression, 'right')]) visitArithmetic(side, scope)
    }
    if (expression.type === 'unary_expression' && operator === '-v' && /\[.*[$`]/s.test(expression.text)) {
      fail(`the test ${snippet(expression.text)} evaluates a subscript as arithmetic`)
    }
    for (const child of expression.children) walk(child)
  }
  walk(node)
  visitChildren(node, scope)
}

/** Arithmetic: every variable named in it has its value evaluated as an expression. */
export function visitArithmetic(node: ShellNode, scope: Scope): void {
  switch (node.type) {
    case 'variable_name':
      scope.shared.evaluated.add(node.text)
      return
    case 'word':
      if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(node.text)) scope.shared.evaluated.add(node.text)
      return scope.shared.visit(node, scope)
    case 'simple_expansion':
    case 'expansion':
    case 'command_substitution':
      for (const variable of node.children.filter((child) => child.type === 'variable_name')) {
        scope.shared.evaluated.add(variable.text)
      }
      return scope.shared.visit(node, scope)
    case 'variable_assignment':
      for (const child of node.children) visitArithmetic(child, scope)
      return
    default:
      if (node.children.length === 0 && OPAQUE_LEAVES.has(node.type) && hasUnparsedSubstitution(node.text)) {
        fail(`the text ${snippet(node.text)} contains a substitution the parser did not read`)
      }
      for (const child of node.children) visitArithmetic(child, scope)
  }
}

/** `${!x}` and `${x@P}` evaluate x's value; `${x:i:n}` evaluates i and n. */
export function visitExpansion(node: ShellNode, scope: Scope): void {
  const variable = node.children.find((child) => child.type === 'variable_name')?.text
  const operators = fieldOf(node, 'operator').map((child) => child.type)
  if (variable !== undefined && (operators[0] === '!' || (operators.includes('@') && operators.includes('P')))) {
    scope.shared.evaluated.add(variable)
  }
  let arithmetic = false
  for (const child of node.children) {
    if (child.field === 'operator') arithmetic = child.type === ':'
    else if (arithmetic && child.named) visitArithmetic(child, scope)
    else scope.shared.visit(child, scope)
  }
}

export function visitSubscript(node: ShellNode, scope: Scope): void {
  for (const child of node.children) {
    if (child.field === 'index') visitArithmetic(child, scope)
    else if (child.field !== 'name') scope.shared.visit(child, scope)
  }
}

export function visitHeredoc(node: ShellNode, scope: Scope): void {
  const quoted = heredocIsQuoted(node)
  for (const child of node.children) {
    if (child.type === 'heredoc_body') {
      if (!quoted) visitHeredocBody(child, scope)
    } else scope.shared.visit(child, scope)
  }
}

/**
 * An unquoted heredoc body expands like a double-quoted string. The grammar parses `$(…)` in it
 * but not backquotes: those are cut out and analysed as scripts.
 */
function visitHeredocBody(body: ShellNode, scope: Scope): void {
  let at = body.start
  const literal = (text: string): void => analyseBackquotes(text, scope)
  for (const child of body.children) {
    if (child.start > at) literal(body.text.slice(at - body.start, child.start - body.start))
    at = Math.max(at, child.end)
    if (child.type === 'heredoc_content') literal(child.text)
    else scope.shared.visit(child, scope)
  }
  if (body.end > at) literal(body.text.slice(at - body.start))
}

function analyseBackquotes(text: string, scope: Scope): void {
  let open = -1
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i)
    if (ch === '\\') i++
    else if (ch === '$' && text.charAt(i + 1) === '(' && open < 0) {
      fail(`the here-document text ${snippet(text)} contains a substitution the parser did not read`)
    } else if (ch === '`' && open < 0) open = i
    else if (ch === '`') {
      scope.shared.analyzeSource(unescapeBackquoted(text.slice(open + 1, i)), deeper(scope))
      open = -1
    }
  }
  if (open >= 0) fail(`the here-document text ${snippet(text)} has an unclosed backquote`)
}
