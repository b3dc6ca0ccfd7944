/**
 * A schema that is not zod 4 is refused at buildTool, by name, with the fix — not accepted and
 * then failing deep inside apiTools() with "Cannot read properties of undefined (reading 'def')".
 * The zod 3 schema is a stand-in with zod 3's shape (`_def`, `safeParse`, no `_zod`): no zod 3 here.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, lazySchema } from '../../src/index.js'

/** What a zod 3 `z.object({ path: z.string() })` looks like from outside. */
const zod3Object = {
  _def: { typeName: 'ZodObject', shape: () => ({ path: { _def: { typeName: 'ZodString' } } }) },
  safeParse: (value: unknown) => ({ success: true, data: value }),
  parse: (value: unknown) => value,
}
const jsonSchema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }
const def = (inputSchema: unknown) => ({
  name: 'Open',
  description: () => 'Opens a path.',
  inputSchema: inputSchema as never,
  async call() {
    return 'ok'
  },
})

describe('buildTool refuses schemas that are not zod 4', () => {
  it('a zod 3 schema: names zod 3 and the two fixes', () => {
    expect(() => buildTool(def(zod3Object))).toThrow(TypeError)
    expect(() => buildTool(def(zod3Object))).toThrow(
      /buildTool\(Open\): inputSchema is a zod 3 schema[^]*import \{ z \} from 'zod'[^]*inputJSONSchema/,
    )
  })

  it('a plain JSON Schema object as inputSchema: says to pass it as inputJSONSchema', () => {
    expect(() => buildTool(def(jsonSchema))).toThrow(
      /inputSchema is a plain object, not a zod 4 schema: pass a JSON Schema as inputJSONSchema/,
    )
    expect(() => buildTool(def('z.string()'))).toThrow(/inputSchema must be a zod 4 schema, got string/)
  })

  it('a lazy schema that resolves to zod 3 is refused when it resolves, with the same words', () => {
    const tool = buildTool(def(lazySchema(() => zod3Object as never)))
    expect(() => tool.inputSchema).toThrow(
      /lazySchema resolved to a schema toolkernel cannot use: inputSchema is a zod 3 schema/,
    )
  })

  it('zod 4 and inputJSONSchema are accepted as before', () => {
    expect(buildTool(def(z.object({ path: z.string() }))).name).toBe('Open')
    const { inputSchema: _none, ...rest } = def(undefined)
    expect(buildTool({ ...rest, inputJSONSchema: jsonSchema as never }).inputJSONSchema).toEqual(jsonSchema)
  })
})
