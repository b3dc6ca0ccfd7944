/** The pure parts of toolkernel/mcp: configuration, schemas, flags. */
import { describe, expect, it } from 'vitest'
import { flagsFor, parseMcpConfig, prepareSchema } from '../../src/mcp.js'

describe('parseMcpConfig', () => {
  it('takes .mcp.json as users write it, expanding ${VAR} and ${VAR:-default}', () => {
    const parsed = parseMcpConfig(
      {
        mcpServers: {
          files: { command: 'npx', args: ['-y', 'server', '${ROOT}'], env: { TOKEN: '${TOKEN:-none}' } },
          remote: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${KEY}' } },
        },
      },
      { env: { ROOT: '/srv', KEY: 'k1' } },
    )
    expect(parsed).toEqual({
      ok: true,
      config: {
        mcpServers: {
          files: { command: 'npx', args: ['-y', 'server', '/srv'], env: { TOKEN: 'none' } },
          remote: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer k1' } },
        },
      },
    })
  })

  it('names every problem with its path', () => {
    const parsed = parseMcpConfig({
      mcpServers: {
        bad__name: { command: 'x' },
        nocommand: { args: [] },
        web: { type: 'http', url: 'ftp://x' },
        old: { type: 'sse', url: 'https://x' },
        typo: { command: 'x', arg: [] },
      },
    })
    expect(parsed.ok).toBe(false)
    const error = parsed.ok ? '' : parsed.error
    expect(error).toContain('mcpServers.bad__name')
    expect(error).toContain('no "__"')
    expect(error).toContain('mcpServers.nocommand.command')
    expect(error).toContain('mcpServers.web.url: url must be an http:// or https:// URL')
    expect(error).toContain('mcpServers.old: type "sse" is not supported')
    expect(error).toMatch(/mcpServers\.typo: .*arg/)
  })

  it('an unset variable without a default is an error, not an empty string', () => {
    const parsed = parseMcpConfig({ mcpServers: { s: { command: '${MISSING}' } } }, { env: {} })
    expect(parsed).toEqual({ ok: false, error: expect.stringContaining('MISSING') })
  })
})

describe('prepareSchema', () => {
  it('draft-07: kept as sent, validated with errors in words', () => {
    const raw = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1 }, mode: { enum: ['a', 'b'] } },
      required: ['n'],
      additionalProperties: false,
    }
    const verdict = prepareSchema(raw)
    if (!verdict.ok) throw new Error(verdict.reason)
    expect(verdict.schema.raw).toBe(raw)
    expect(verdict.schema.wrapped).toBe(false)
    expect(verdict.schema.sent).not.toHaveProperty('$schema')
    expect(verdict.schema.validate({ n: 0, mode: 'c', extra: 1 })).toEqual([
      'unexpected field `extra`',
      '`n` must be >= 1',
      '`mode` must be one of "a", "b", got "c"',
    ])
    expect(verdict.schema.validate({ n: 'x' })).toEqual(['`n` must be an integer, got a string'])
    expect(verdict.schema.validate({ n: 3 })).toEqual([])
  })

  it('2020-12: prefixItems and $defs work; a top-level anyOf is wrapped with its $defs at the root', () => {
    const verdict = prepareSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false } },
      anyOf: [{ type: 'object', properties: { at: { $ref: '#/$defs/point' } }, required: ['at'] }],
    })
    if (!verdict.ok) throw new Error(verdict.reason)
    expect(verdict.schema.wrapped).toBe(true)
    expect(verdict.schema.sent).toMatchObject({
      type: 'object',
      required: ['input'],
      $defs: { point: expect.any(Object) },
    })
    expect(verdict.schema.validate({ input: { at: [1, 2] } })).toEqual([])
    expect(verdict.schema.validate({ input: { at: [1, 2, 3] } }).join('\n')).toContain('`input.at`')
    expect(verdict.schema.validate({ at: [1, 2] })).toEqual([
      'unexpected field `at` (put the whole input in `input`)',
      'missing required field `input`',
    ])
  })

  it('withholds what cannot be sent, saying why', () => {
    expect(prepareSchema('nope')).toEqual({ ok: false, reason: 'its inputSchema is not a JSON object' })
    expect(prepareSchema({ type: 'object', properties: { a: { $ref: 'https://x/s.json' } } })).toEqual({
      ok: false,
      reason: expect.stringContaining('refers to https://x/s.json outside itself'),
    })
    expect(prepareSchema({ type: 'object', properties: { a: { type: 'string', pattern: '(' } } })).toMatchObject({
      ok: false,
    })
    const huge = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`p${i}`, { type: 'string' }])),
    }
    expect(prepareSchema(huge)).toEqual({ ok: false, reason: expect.stringContaining('characters of JSON') })
  })
})

describe('flagsFor', () => {
  it('fails closed: nothing said → not read-only, destructive, open-world, not retried', () => {
    expect(flagsFor(undefined, true)).toEqual({ readOnly: false, destructive: true, openWorld: true, retryable: false })
  })
  it('read-only (so concurrency-safe and retryable) only when readOnlyHint is true and the server trusted', () => {
    expect(flagsFor({ readOnlyHint: true }, false).readOnly).toBe(false)
    expect(flagsFor({ readOnlyHint: true }, true)).toEqual({
      readOnly: true,
      destructive: false,
      openWorld: true,
      retryable: true,
    })
  })
  it('idempotent tools are retried only from a trusted server; destructive and open-world follow the hints', () => {
    expect(flagsFor({ idempotentHint: true }, false).retryable).toBe(false)
    expect(flagsFor({ idempotentHint: true }, true).retryable).toBe(true)
    expect(flagsFor({ destructiveHint: false, openWorldHint: false }, true)).toMatchObject({
      destructive: false,
      openWorld: false,
    })
  })

  it("an untrusted server's safer-sounding hints are not believed (decision 143)", () => {
    expect(flagsFor({ destructiveHint: false, openWorldHint: false, readOnlyHint: true }, false)).toEqual({
      readOnly: false,
      destructive: true,
      openWorld: true,
      retryable: false,
    })
    expect(flagsFor({ readOnlyHint: true }, true)).toMatchObject({ readOnly: true, destructive: false })
  })
})
