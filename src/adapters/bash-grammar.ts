/**
 * Loads the tree-sitter bash grammar (WebAssembly, no native build) and adapts it to the
 * `BashParser` port of the shell analysis. This is the only module that touches web-tree-sitter
 * and the `.wasm` file; the analysis itself is pure.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Parser, Tree, TreeCursor } from 'web-tree-sitter'
import { builtin } from '../util/builtin.js'
import { installBashParser } from '../permissions/shell/installed.js'
import type { BashParser, ShellNode, ShellTree } from '../permissions/shell/shell.types.js'

/** Trees nested deeper than this are reported as errors: the analysis recurses over them. */
const MAX_DEPTH = 256

let loading: Promise<BashParser> | undefined
let loaded: BashParser | undefined

/**
 * Loads the bash grammar once; later calls return the same parser.
 *
 * @example
 * const parser = await loadBashGrammar()
 * analyzeShell('ls && rm x', parser) // { kind: 'known', commands: [ls, rm] }
 */
export function loadBashGrammar(): Promise<BashParser> {
  loading ??= load().then(
    (parser) => {
      installBashParser(parser)
      return (loaded = parser)
    },
    (error: unknown) => {
      loading = undefined // a failed load may be retried
      throw error
    },
  )
  return loading
}

/** The parser if `loadBashGrammar` has finished, for synchronous callers; otherwise undefined. */
export function bashGrammarIfLoaded(): BashParser | undefined {
  return loaded
}

async function load(): Promise<BashParser> {
  // Imported here, not at the top: an app that never runs a shell command never loads it (start-up).
  const { Language, Parser } = await import('web-tree-sitter')
  await Parser.init()
  const language = await Language.load(wasmPath())
  const parser = new Parser()
  parser.setLanguage(language)
  return { parse: (source) => parseToPlain(parser, source) }
}

/** Next to the compiled file (the build copies it into dist/adapters/), else from the package. */
function wasmPath(): string {
  const beside = fileURLToPath(new URL('./tree-sitter-bash.wasm', import.meta.url))
  if (existsSync(beside)) return beside
  return builtin('node:module')
    .createRequire(import.meta.url)
    .resolve('tree-sitter-bash/tree-sitter-bash.wasm')
}

function parseToPlain(parser: Parser, source: string): ShellTree | undefined {
  const tree: Tree | null = parser.parse(source)
  if (tree === null) return undefined
  try {
    return copyTree(tree, source)
  } finally {
    tree.delete()
  }
}

interface Building {
  readonly node: Omit<ShellNode, 'children'> & { children: ShellNode[] }
}

/** Copies the tree into plain objects with a cursor: iterative, so deep input cannot overflow. */
function copyTree(tree: Tree, source: string): ShellTree {
  const cursor = tree.walk()
  try {
    let hasError = tree.rootNode.hasError
    const stack: Building[] = [{ node: nodeAt(cursor, source) }]
    for (;;) {
      const top = stack[stack.length - 1]
      if (top === undefined) throw new Error('bash-grammar: cursor stack underflow')
      if (stack.length <= MAX_DEPTH && cursor.gotoFirstChild()) {
        stack.push(enter(cursor, source, top))
        continue
      }
      if (stack.length > MAX_DEPTH) hasError = true
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return { root: rootOf(stack), hasError }
        stack.pop()
      }
      stack.pop()
      const parent = stack[stack.length - 1]
      if (parent === undefined) throw new Error('bash-grammar: sibling without a parent')
      stack.push(enter(cursor, source, parent))
    }
  } finally {
    cursor.delete()
  }
}

function rootOf(stack: Building[]): ShellNode {
  const root = stack[0]
  if (root === undefined) throw new Error('bash-grammar: empty tree')
  return root.node
}

function enter(cursor: TreeCursor, source: string, parent: Building): Building {
  const child = { node: nodeAt(cursor, source) }
  parent.node.children.push(child.node)
  return child
}

function nodeAt(cursor: TreeCursor, source: string): Building['node'] {
  const start = cursor.startIndex
  const end = cursor.endIndex
  return {
    type: cursor.nodeType,
    text: source.slice(start, end),
    start,
    end,
    named: cursor.nodeIsNamed,
    missing: cursor.nodeIsMissing,
    field: cursor.currentFieldName ?? undefined,
    children: [],
  }
}
