import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, DEFAULT_MAX_RESULT_SIZE_CHARS, lazySchema, toAPIFormat } from '../../src/index.js'
import { Echo } from '../helpers.js'
import { textOf } from '../../src/tools/to-api-format.js'

const minimal = () =>
  buildTool({
    name: 'Min',
    description: () => 'Minimal.',
    inputSchema: z.object({ a: z.string() }),
    call: async () => 'x',
  })

describe('buildTool', () => {
  it('fills fail-closed defaults', () => {
    const tool = minimal()
    expect(tool.isEnabled()).toBe(true)
    expect(tool.isConcurrencySafe({ a: '' })).toBe(false)
    expect(tool.isReadOnly({ a: '' })).toBe(false)
    // Destructive unless it says it is read-only (decision 142).
    expect(tool.isDestructive({ a: '' })).toBe(true)
    expect(tool.isOpenWorld({ a: '' })).toBe(false)
    expect(tool.interruptBehavior()).toBe('block')
    expect(tool.userFacingName()).toBe('Min')
    expect(tool.aliases).toEqual([])
    expect(tool.maxResultSizeChars).toBe(DEFAULT_MAX_RESULT_SIZE_CHARS)
    expect(textOf(tool, 'prompt')).toBe('Minimal.')
    expect(tool.cascadesOnFailure).toBe(false)
  })

  it('allows by default in checkPermissions, leaving rules to the kernel', async () => {
    expect(await minimal().checkPermissions({ a: '' }, {} as never)).toEqual({ behavior: 'allow' })
  })

  it('makes object input schemas strict', () => {
    const schema = minimal().inputSchema
    expect(schema?.safeParse({ a: 'x', extra: 1 }).success).toBe(false)
    expect(schema?.safeParse({ a: 'x' }).success).toBe(true)
  })

  it('rejects definitions that could never run, naming the problem', () => {
    expect(() =>
      buildTool({ name: 'bad name!', description: () => '', inputSchema: z.object({}), call: async () => '' }),
    ).toThrow(/name "bad name!"/)
    expect(() => buildTool({ name: 'NoSchema', description: () => '', call: async () => '' })).toThrow(/inputSchema/)
    expect(() => buildTool({ name: 'NoCall', description: () => '', inputSchema: z.object({}) } as never)).toThrow(
      /call must be a function/,
    )
  })

  it('builds a lazy schema once, on first use', () => {
    let built = 0
    const tool = buildTool({
      name: 'Lazy',
      description: () => 'Lazy.',
      inputSchema: lazySchema(() => {
        built++
        return z.object({ n: z.number() })
      }),
      call: async () => '',
    })
    expect(built).toBe(0)
    expect(tool.inputSchema?.safeParse({ n: 1 }).success).toBe(true)
    expect(tool.inputSchema?.safeParse({ n: 'x' }).success).toBe(false)
    expect(built).toBe(1)
  })
})

describe('toAPIFormat', () => {
  it('gives the Anthropic tools parameter with field descriptions and no zod artefacts', () => {
    const [api] = toAPIFormat([Echo])
    expect(api).toEqual({
      name: 'Echo',
      description: 'Echoes its text.',
      input_schema: {
        type: 'object',
        properties: {
          text: { type: 'string', description: 'What to echo' },
          times: { type: 'integer', description: 'Repeat count' },
        },
        required: ['text'],
        additionalProperties: false,
      },
    })
  })

  it('uses prompt() as the model-facing description and leaves disabled tools out', () => {
    const prompted = buildTool({
      name: 'P',
      description: () => 'short',
      prompt: () => 'long text for the model',
      inputSchema: z.object({}),
      call: async () => '',
    })
    const disabled = buildTool({
      name: 'Off',
      description: () => 'off',
      inputSchema: z.object({}),
      isEnabled: () => false,
      call: async () => '',
    })
    const throwing = buildTool({
      name: 'Throws',
      description: () => 't',
      inputSchema: z.object({}),
      isEnabled: () => {
        throw new Error('x')
      },
      call: async () => '',
    })
    expect(toAPIFormat([prompted, disabled, throwing]).map((t) => [t.name, t.description])).toEqual([
      ['P', 'long text for the model'],
    ])
  })

  it('passes a JSON Schema tool through as it is', () => {
    const schema = { type: 'object' as const, properties: { q: { type: 'string' } }, required: ['q'] }
    const tool = buildTool({ name: 'J', description: () => 'j', inputJSONSchema: schema, call: async () => '' })
    expect(toAPIFormat([tool])[0]?.input_schema).toEqual(schema)
  })
})
