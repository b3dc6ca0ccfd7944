/**
 * Where bash evaluates text as code: command substitutions (re-read inside backquotes),
 * arithmetic (whose variables' values are themselves evaluated), `${!x}` and `${x@P}`, test
 * operators, and the bodies of unquoted here-documents.
 */
import { fieldOf, hasUnparsedSubstitution, identifiersIn, OPAQUE_LEAVES, snippet } from './nodes.js'
import { heredocIsQuoted, readRedirect } from './redirects.js'
import { deeper, pushCommand } from './scope.js'
import type { Scope } from './scope.js'
import type { ShellNode } from './shell.types.js'
import { fail } from './unknown.js'
import { decodeAnsiC } from './words.js'

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

/**
 * Test expressions: arithmetic comparisons evaluate their operands; `-v` evaluates the subscript of
 * the name its word expands to, so any expansion in it (`-v $x`, `-v $'a[\x24(x)]'`) is unknown.
 */
const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge'])

export function visitTest(node: ShellNode, scope: Scope): void {
  const walk = (expression: ShellNode): void => {
    const operator = fieldOf(expression, 'operator')[0]?.text
    if (expression.type === 'binary_expression' && operator !== undefined && ARITHMETIC_TESTS.has(operator)) {
      for (const side of [...fieldOf(expression, 'left'), ...fieldOf(expression, 'right')]) visitArithmetic(side, scope)
    }
    if (expression.type === 'unary_expression' && operator === '-v') {
      if (/[$`]/.test(expression.text)) fail(`the test ${snippet(expression.text)} evaluates a subscript as arithmetic`)
      for (const name of subscriptNames(expression.text)) scope.shared.evaluated.add(name)
    }
    for (const child of expression.children) walk(child)
  }
  walk(node)
  visitChildren(node, scope)
}

/**
 * Names bash itself sets from text the command controls: the last argument of the previous
 * command (`$_`), what `read`, `mapfile`, `getopts` and `[[ =~ ]]` store when given no name, the
 * current command line, the positional parameters (`set --`, a function's arguments) and `$-`
 * (whose letters, `hBc`, are themselves a name). Evaluating one is evaluating the command's text.
 */
const SET_BY_BASH = new Set([
  '_',
  'REPLY',
  'MAPFILE',
  'OPTARG',
  'BASH_REMATCH',
  'BASH_COMMAND',
  'BASH_EXECUTION_STRING',
  'BASH_ARGV',
  'BASH_ARGV0',
  'BASH_SOURCE',
  'FUNCNAME',
  'DIRSTACK',
  'PWD',
  'OLDPWD',
  'COPROC',
  'READLINE_LINE',
  'COMP_LINE',
  'COMP_WORDS',
  '@',
  '*',
  '-',
])

/** Whether bash sets `name` itself from text the command controls (see SET_BY_BASH). */
export function setByBash(name: string): boolean {
  return SET_BY_BASH.has(name) || /^\d+$/.test(name)
}

/** Leaves whose text bash reads as arithmetic once quotes are removed (quotes do not quote there). */
const ARITHMETIC_TEXT = new Set(['word', 'string_content', 'raw_string', 'ansi_c_string', 'number'])

/** Arithmetic: every variable named in it has its value evaluated as an expression. */
export function visitArithmetic(node: ShellNode, scope: Scope): void {
  switch (node.type) {
    case 'variable_name':
      scope.shared.evaluated.add(node.text)
      return
    case 'simple_expansion':
    case 'expansion':
      for (const name of namesExpandedIn(node)) scope.shared.evaluated.add(name)
      return scope.shared.visit(node, scope)
    case 'command_substitution':
      return fail(
        `bash evaluates the output of ${snippet(node.text)} as arithmetic, where array subscripts in it run commands`,
      )
    default:
      if (node.children.length === 0 && ARITHMETIC_TEXT.has(node.type)) visitArithmeticText(node, scope)
      else if (node.children.length === 0 && OPAQUE_LEAVES.has(node.type)) checkUnparsed(node)
      else for (const child of node.children) visitArithmetic(child, scope)
  }
}

/**
 * A word in arithmetic is an expression: `a[i]` evaluates i. Single quotes do not quote there
 * (`$(( '$(rm x)' ))` runs rm), so a substitution in quoted text is one the parser did not read.
 */
function visitArithmeticText(node: ShellNode, scope: Scope): void {
  checkUnparsed(node)
  for (const name of identifiersIn(leafText(node))) scope.shared.evaluated.add(name)
  if (node.type === 'word') scope.shared.visit(node, scope)
}

/** The text bash reads in a leaf: an ANSI-C string decoded (`$'\x24(rm x)'` is `$(rm x)`, `$'\x79'` is y). */
function leafText(node: ShellNode): string {
  return node.type === 'ansi_c_string' ? decodeAnsiC(node.text.slice(2, -1)) : node.text
}

function checkUnparsed(node: ShellNode): void {
  if (hasUnparsedSubstitution(leafText(node))) {
    fail(`the text ${snippet(node.text)} contains a substitution the parser did not read`)
  }
}

/**
 * The names whose values an expansion puts into arithmetic, where they are evaluated in turn:
 * the parameter itself and any name in a default or replacement (`${z:-y}` may yield `y`).
 * `${#x}` is a length, a number.
 */
function namesExpandedIn(node: ShellNode): string[] {
  if (leadingOperator(node) === '#') return []
  const subject = expansionSubject(node)
  const names = node.type === 'expansion' ? identifiersIn(node.text.slice(2, -1)) : []
  return subject === undefined ? names : [subject, ...names]
}

/** The parameter an expansion names: `x` in `$x`, `${x:-y}`, `${x[1]}` and `${!x}`; `1` in `$1`. */
function expansionSubject(node: ShellNode): string | undefined {
  for (const child of node.children) {
    if (child.type === 'variable_name' || child.type === 'special_variable_name') return child.text
    if (child.type === 'subscript') return fieldOf(child, 'name')[0]?.text
  }
  return undefined
}

/** `!` in `${!x}`, `#` in `${#x}`: the operator between `${` and the name, if any. */
function leadingOperator(node: ShellNode): string | undefined {
  const second = node.children[1]
  return second?.field === 'operator' ? second.type : undefined
}

/**
 * `${!x}` takes x's value as a name, and a name's subscript is evaluated as arithmetic; the
 * forms that list names or keys (`${!x*}`, `${!x@}`, `${!a[@]}`) do not.
 */
function isIndirect(node: ShellNode, operators: readonly string[]): boolean {
  if (leadingOperator(node) !== '!') return false
  const subscript = node.children.find((child) => child.type === 'subscript')
  if (subscript !== undefined) {
    const index = fieldOf(subscript, 'index')[0]?.text
    return index !== '@' && index !== '*'
  }
  return !(operators.length === 2 && (operators[1] === '*' || operators[1] === '@'))
}

/**
 * `${x@P}` expands x's value as a prompt string, which decodes escapes and then runs the command
 * substitutions the result contains: unknown. `${!x}` evaluates x's value as a name;
 * `${x=…}` and `${x:=…}` assign x; `${x:i:n}` evaluates i and n as arithmetic. Inside
 * double quotes single quotes do not quote in `${x:-…}`, so substitutions in them are checked.
 */
export function visitExpansion(node: ShellNode, scope: Scope): void {
  const operators = fieldOf(node, 'operator').map((child) => child.type)
  if (operators.some((op, i) => op === '@' && operators[i + 1] === 'P') || /@P\}$/.test(node.text)) {
    fail(`${snippet(node.text)} expands a value as a prompt string, which runs the command substitutions in it`)
  }
  const subject = expansionSubject(node)
  if (subject !== undefined && isIndirect(node, operators)) scope.shared.evaluated.add(subject)
  if (subject !== undefined && (operators.includes('=') || operators.includes(':='))) {
    scope.shared.assigned.add(subject)
  }
  let arithmetic = false
  for (const child of node.children) {
    if (child.field === 'operator') arithmetic = child.type === ':'
    else if (arithmetic && child.named) visitArithmetic(child, scope)
    else {
      checkSingleQuoted(child)
      scope.shared.visit(child, scope)
    }
  }
}

/** The single-quoted parts of an expansion's word, outside any nested substitution. */
function checkSingleQuoted(node: ShellNode): void {
  if (node.type === 'raw_string' || node.type === 'ansi_c_string') return checkUnparsed(node)
  // Unquoted, `${y:-<(rm x)}` runs rm, but the grammar reads `<(rm x)` there as a plain word.
  if (node.type === 'word' && /(^|[^\\])[<>]\(/.test(node.text)) {
    fail(`the word ${snippet(node.text)} is a process substitution the parser did not read`)
  }
  if (node.type === 'command_substitution' || node.type === 'process_substitution') return
  for (const child of node.children) checkSingleQuoted(child)
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
    else if (ch === '$' && '([{'.includes(text.charAt(i + 1)) && text.charAt(i + 1) !== '' && open < 0) {
      fail(`the here-document text ${snippet(text)} contains a substitution the parser did not read`)
    } else if (ch === '`' && open < 0) open = i
    else if (ch === '`') {
      scope.shared.analyzeSource(unescapeBackquoted(text.slice(open + 1, i)), deeper(scope))
      open = -1
    }
  }
  if (open >= 0) fail(`the here-document text ${snippet(text)} has an unclosed backquote`)
}

/** The names in the subscript of `a[i+j]` (evaluated as arithmetic when a builtin takes the name). */
export function subscriptNames(text: string): string[] {
  const index = /^[^[]*\[(.*)\]/s.exec(text)?.[1]
  return index === undefined ? [] : identifiersIn(index)
}
