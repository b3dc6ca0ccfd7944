/**
 * Every TypeScript snippet of README.md, docs/*.md and docs/decisions/*.md, compiled as it is
 * written by the project's own compiler options (strict, exactOptionalPropertyTypes,
 * noUncheckedIndexedAccess): an API that changes breaks the page that shows it here, not in a
 * reader's editor. Each ```ts fence is a module of its own; `toolkernel` and its subpaths resolve
 * to src/. What a snippet takes from the page around it (a kernel, a model client, the messages
 * so far) is declared once in test/docs/snippet-context.ts. A ```js fence is a JavaScript module
 * as a reader saves it (docs/cli.md's `--tools` module): checked as JavaScript (checkJs), whole,
 * with nothing declared for it. A fence marked ```ts nocheck is shown as a fragment and skipped;
 * the test keeps their number small and says which they are.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))
const markdownIn = (dir: string) =>
  readdirSync(join(root, dir))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `${dir}/${f}`)
const pages = ['README.md', ...markdownIn('docs'), ...markdownIn('docs/decisions')]

interface Snippet {
  page: string
  line: number
  info: string
  code: string
  /** A ```js fence: a JavaScript module, checked as one. */
  js: boolean
}

function snippets(page: string): Snippet[] {
  const found: Snippet[] = []
  const lines = readFileSync(join(root, page), 'utf8').split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|typescript|js|javascript)\b(.*)$/.exec(lines[i] ?? '')
    if (open === null) continue
    const start = i + 1
    let end = start
    while (end < lines.length && lines[end] !== '```') end++
    found.push({
      page,
      line: start + 1,
      info: (open[2] ?? '').trim(),
      code: lines.slice(start, end).join('\n'),
      js: open[1] === 'js' || open[1] === 'javascript',
    })
    i = end
  }
  return found
}

const all = pages.flatMap(snippets)
const skipped = all.filter((s) => /\bnocheck\b/.test(s.info))
const checked = all.filter((s) => !skipped.includes(s))

const SUBPATHS: Record<string, string> = {
  toolkernel: 'src/index.ts',
  'toolkernel/loop': 'src/loop/index.ts',
  'toolkernel/mcp': 'src/mcp.ts',
  'toolkernel/otel': 'src/otel/index.ts',
  'toolkernel/postgres': 'src/postgres/index.ts',
  'toolkernel/ai-sdk': 'src/ai-sdk/index.ts',
  'toolkernel/testing': 'src/testing/index.ts',
}

/** Names a snippet uses without importing: the library's exports, and the packages pages assume. */
interface Library {
  names: Map<string, string>
  program: ts.Program
}

function libraryNames(options: ts.CompilerOptions, host: ts.CompilerHost): Library {
  const names = new Map<string, string>([
    ['z', "import { z } from 'zod'"],
    ['Anthropic', "import Anthropic from '@anthropic-ai/sdk'"],
    ['OpenAI', "import OpenAI from 'openai'"],
    ['generateText', "import { generateText } from 'ai'"],
    ['streamText', "import { streamText } from 'ai'"],
    ['ModelMessage', "import type { ModelMessage } from 'ai'"],
  ])
  const entries = Object.values(SUBPATHS).map((path) => join(root, path))
  const program = ts.createProgram(entries, options, host)
  const checker = program.getTypeChecker()
  for (const [module, path] of Object.entries(SUBPATHS)) {
    const file = program.getSourceFile(join(root, path))
    const symbol = file === undefined ? undefined : checker.getSymbolAtLocation(file)
    if (symbol === undefined) continue
    for (const exported of checker.getExportsOfModule(symbol)) {
      if (names.has(exported.name)) continue
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
      const typeOnly = (target.flags & ts.SymbolFlags.Value) === 0
      names.set(exported.name, `import ${typeOnly ? 'type ' : ''}{ ${exported.name} } from '${module}'`)
    }
  }
  return { names, program }
}

/** The snippet declares or imports `name` itself. */
function declares(code: string, name: string): boolean {
  const n = name.replace(/\$/g, '\\$')
  return new RegExp(
    `import[^;]*\\b${n}\\b[^;]*from|\\b(?:const|let|var|function|class|type|interface|namespace)\\s+${n}\\b|\\b(?:const|let|var)\\s*[{[][^=]*\\b${n}\\b[^=]*=`,
  ).test(code)
}

/** What the snippet takes from the library and the page around it, on one line above it. */
function prelude(code: string, library: ReadonlyMap<string, string>, context: ReadonlyMap<string, string>): string {
  const uses = (name: string) => new RegExp(`(?<![\\w$])(?<![^.]\\.)${name}\\b`).test(code) && !declares(code, name)
  const lines = [...library].filter(([name]) => uses(name) && !context.has(name)).map(([, line]) => line)
  const needed = [...context].filter(([name]) => uses(name))
  if (needed.length > 0) lines.push(`import type { SnippetContext } from '../snippet-context.js'`)
  for (const [name] of needed) lines.push(`declare const ${name}: SnippetContext['${name}']`)
  return lines.join('; ')
}

/** The compiler's complaints about each snippet, as `page:line: message` (the page's own line). */
function compile(list: readonly Snippet[]): string[] {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => ts.sys.readFile(path))
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root)
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: true,
    declaration: false,
    sourceMap: false,
    // A snippet shows a use; a name it declares and does not use again is no mistake on a page.
    noUnusedLocals: false,
    noUnusedParameters: false,
    // ```js fences: JavaScript, type-checked as such.
    allowJs: true,
    checkJs: true,
    baseUrl: root,
    paths: Object.fromEntries(Object.entries(SUBPATHS).map(([name, path]) => [name, [path]])),
  }
  const host = ts.createCompilerHost(options)
  const library = libraryNames(options, host)
  const contextFile = join(root, 'test/docs/snippet-context.ts')
  const context = new Map(
    [...readFileSync(contextFile, 'utf8').matchAll(/^ {2}(\w+): /gm)].map((m) => [m[1] as string, m[1] as string]),
  )
  // Each snippet is a virtual file beside this test, so packages resolve from the repo's node_modules.
  const files = new Map(
    list.map((s, i) => {
      // A JavaScript module is taken whole, as a reader saves it: nothing is declared for it.
      const text = s.js ? `${s.code}\nexport {}\n` : `${prelude(s.code, library.names, context)}\n${s.code}\nexport {}\n`
      return [join(root, 'test/docs/__snippets__', `${i}.${s.js ? 'js' : 'ts'}`), text] as const
    }),
  )
  const { fileExists, readFile, getSourceFile } = host
  host.fileExists = (path) => files.has(path) || fileExists.call(host, path)
  host.readFile = (path) => files.get(path) ?? readFile.call(host, path)
  host.getSourceFile = (path, language, ...rest) => {
    const text = files.get(path)
    return text === undefined
      ? getSourceFile.call(host, path, language, ...rest)
      : ts.createSourceFile(path, text, language, true)
  }
  // The library's files, parsed once for its names, are reused.
  const program = ts.createProgram([...files.keys()], options, host, library.program)
  // Only the snippets are checked (the library is checked by the project's own tsc).
  return [...files.keys()].flatMap((path, i) => {
    const snippet = list[i] as Snippet
    const file = program.getSourceFile(path)
    if (file === undefined) return [`${snippet.page}:${snippet.line}: not compiled`]
    const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]
    return diagnostics.map((d) => {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0] ?? ''
      const line = d.start === undefined ? 0 : file.getLineAndCharacterOfPosition(d.start).line
      return `${snippet.page}:${snippet.line + line - 1}: ${message}`
    })
  })
}

describe('the TypeScript and JavaScript snippets of README.md, docs/*.md and docs/decisions/*.md', () => {
  it('are found: every page with code has its fences read, the decisions and the JavaScript ones too', () => {
    expect(checked.length).toBeGreaterThan(20)
    expect(checked.some((s) => s.page.startsWith('docs/decisions/'))).toBe(true)
    expect(checked.filter((s) => s.js).map((s) => s.page)).toContain('docs/cli.md')
  })

  it('every fence is closed (a stray one turns the rest of a page into code)', () => {
    const odd = pages.filter((page) => (readFileSync(join(root, page), 'utf8').match(/^\s*```/gm) ?? []).length % 2 === 1)
    expect(odd).toEqual([])
  })

  // One program over every fence: ~240 s at load 9–17 on two cores since the decisions' and the
  // js fences joined it (87 s before). The bound is for a hang, not a slow machine.
  it('compile as written', { timeout: 600_000 }, () => {
    expect(compile(checked)).toEqual([])
  })

  it('few are fragments left unchecked (```ts nocheck), each named here', () => {
    // Each needs what this repository does not install or is compiled where it lives:
    expect(skipped.map((s) => `${s.page}:${s.line}`)).toEqual([
      'docs/testing.md:12', // the whole of examples/testing, type-checked there (test/examples)
    ])
  })
})
