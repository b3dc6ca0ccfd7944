/** classifySafety fails closed: anything short of the tool's own `true` for a valid input is unsafe. */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { classifySafety } from '../../../src/actors/turn/safety.js'
import { buildTool } from '../../../src/tools/build-tool.js'
import { ToolRegistry } from '../../../src/tools/tool-registry.js'

const seen: unknown[] = []
const Ls = buildTool({
  name: 'Ls',
  aliases: ['List'],
  description: () => 'Lists a directory.',
  inputSchema: z.object({ path: z.string(), all: z.boolean().default(false) }),
  // Safe only for one path: the predicate sees the validated input (defaults applied).
  isConcurrencySafe: (input) => {
    seen.push(input)
    return input.path === '/safe'
  },
  call: async () => '',
})
const Throws = buildTool({
  name: 'Throws',
  description: () => 'Its safety predicate throws.',
  inputSchema: z.object({}),
  isConcurrencySafe: () => {
    throw new Error('cannot tell')
  },
  call: async () => '',
})
const Truthy = buildTool({
  name: 'Truthy',
  description: () => 'Its safety predicate answers a truthy non-boolean.',
  inputSchema: z.object({}),
  isConcurrencySafe: () => 'yes' as unknown as boolean,
  call: async () => '',
})
const Default = buildTool({
  name: 'Default',
  description: () => 'Declares nothing about safety.',
  inputSchema: z.object({}),
  call: async () => '',
})
const Json = buildTool({
  name: 'Json',
  description: () => 'Described by a JSON Schema only: the input reaches the predicate unparsed.',
  inputJSONSchema: { type: 'object' },
  isConcurrencySafe: (input: unknown) => (input as { ok?: unknown }).ok === true,
  call: async () => '',
})
// Answers from the kernel's shell analysis, here a stand-in that calls only `ls …` read-only.
const predicates = {
  shell: { readOnly: (command: string) => ({ readOnly: command.startsWith('ls ') }) },
}
const Shell = buildTool({
  name: 'Shell',
  description: () => 'Safe when the shell analysis it is handed calls its command read-only.',
  inputSchema: z.object({ command: z.string() }),
  isConcurrencySafe: (input, context) => context?.shell.readOnly(input.command).readOnly === true,
  call: async () => '',
})
const registry = new ToolRegistry([Ls, Throws, Truthy, Default, Json, Shell])

describe('classifySafety', () => {
  it('safe when the predicate answers true for the validated input; the tool and parsed input come back', () => {
    seen.length = 0
    const classified = classifySafety(registry, 'Ls', { path: '/safe' }, undefined, predicates)
    expect(classified).toEqual({ safety: { safe: true }, tool: Ls, input: { path: '/safe', all: false } })
    expect(seen).toEqual([{ path: '/safe', all: false }])
  })

  it('finds the tool by alias', () => {
    expect(classifySafety(registry, 'List', { path: '/safe' }, undefined, predicates).safety).toEqual({ safe: true })
  })

  it("unsafe with no reason when the predicate answers false: it is the tool's own answer", () => {
    const classified = classifySafety(registry, 'Ls', { path: '/other' }, undefined, predicates)
    expect(classified.safety).toEqual({ safe: false })
    expect(classified.tool).toBe(Ls)
  })

  it('an unknown tool is unsafe', () => {
    expect(classifySafety(registry, 'Nope', {}, undefined, predicates)).toEqual({
      safety: { safe: false, reason: 'unknown tool' },
    })
  })

  it('an input error is unsafe, and the predicate is never asked', () => {
    seen.length = 0
    expect(classifySafety(registry, 'Ls', { path: '/safe' }, 'truncated JSON', predicates)).toEqual({
      safety: { safe: false, reason: 'input is not valid JSON' },
    })
    expect(seen).toEqual([])
  })

  it('an input the schema rejects is unsafe, and the predicate is never asked', () => {
    seen.length = 0
    expect(classifySafety(registry, 'Ls', { path: 7 }, undefined, predicates)).toEqual({
      safety: { safe: false, reason: 'input does not validate' },
    })
    expect(classifySafety(registry, 'Ls', { path: '/safe', extra: 1 }, undefined, predicates).safety.safe).toBe(false)
    expect(seen).toEqual([])
  })

  it('a predicate that throws is unsafe and says so', () => {
    expect(classifySafety(registry, 'Throws', {}, undefined, predicates)).toEqual({
      safety: { safe: false, reason: 'isConcurrencySafe threw' },
      tool: Throws,
      input: {},
    })
  })

  it('a predicate answering anything but true (a truthy string) is unsafe', () => {
    expect(classifySafety(registry, 'Truthy', {}, undefined, predicates).safety).toEqual({ safe: false })
  })

  it('a tool that declares nothing is unsafe (the buildTool default)', () => {
    expect(classifySafety(registry, 'Default', {}, undefined, predicates).safety).toEqual({ safe: false })
  })

  it('a JSON-Schema tool hands its raw input to the predicate', () => {
    expect(classifySafety(registry, 'Json', { ok: true }, undefined, predicates)).toEqual({
      safety: { safe: true },
      tool: Json,
      input: { ok: true },
    })
    expect(classifySafety(registry, 'Json', { ok: 'true' }, undefined, predicates).safety.safe).toBe(false)
  })

  it("hands the predicate the kernel's analyses: the same tool is safe or not by what they say", () => {
    expect(classifySafety(registry, 'Shell', { command: 'ls -la' }, undefined, predicates).safety).toEqual({
      safe: true,
    })
    expect(classifySafety(registry, 'Shell', { command: 'rm -rf x' }, undefined, predicates).safety).toEqual({
      safe: false,
    })
  })
})
