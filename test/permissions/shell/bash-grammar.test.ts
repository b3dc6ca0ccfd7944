import { describe, expect, it } from 'vitest'
import { bashGrammarIfLoaded, loadBashGrammar } from '../../../src/adapters/bash-grammar.js'
import { analyzeShell } from '../../../src/permissions/shell/analyze.js'
import type { ShellNode } from '../../../src/permissions/shell/shell.types.js'

function types(node: ShellNode): string[] {
  return [node.type, ...node.children.flatMap(types)]
}

describe('loadBashGrammar', () => {
  it('loads once and is then available synchronously', async () => {
    const [first, second] = await Promise.all([loadBashGrammar(), loadBashGrammar()])
    expect(first).toBe(second)
    expect(await loadBashGrammar()).toBe(first)
    expect(bashGrammarIfLoaded()).toBe(first)
  })

  it('copies the tree into plain nodes with fields and offsets', async () => {
    const parser = await loadBashGrammar()
    const tree = parser.parse('ls\ntouch "X"')
    expect(tree?.hasError).toBe(false)
    const commands = tree?.root.children.filter((node) => node.type === 'command') ?? []
    expect(commands.map((node) => node.text)).toEqual(['ls', 'touch "X"'])
    const argument = commands[1]?.children.find((node) => node.field === 'argument')
    expect(argument).toMatchObject({ type: 'string', text: '"X"', start: 9, end: 12, named: true, missing: false })
  })

  it('indexes by JavaScript string positions, not bytes', async () => {
    const parser = await loadBashGrammar()
    const source = 'echo "héllo 😀" && rm x'
    const root = parser.parse(source)?.root
    const rm = root?.children[0]?.children.at(-1)
    expect(rm && source.slice(rm.start, rm.end)).toBe('rm x')
  })

  it('reports syntax errors and missing nodes', async () => {
    const parser = await loadBashGrammar()
    expect(parser.parse('{rm,-f,x}')?.hasError).toBe(true)
    const missing = parser.parse('x=1 >f')?.root
    expect(missing && types(missing)).toContain('word')
    expect(parser.parse('x=1 >f')?.hasError).toBe(true)
  })

  it('marks a tree too deep to copy as an error instead of overflowing', async () => {
    const parser = await loadBashGrammar()
    const deep = `${'( '.repeat(400)}ls${' )'.repeat(400)}`
    expect(parser.parse(deep)?.hasError).toBe(true)
    expect(analyzeShell(deep, parser).kind).toBe('unknown')
  })
})
