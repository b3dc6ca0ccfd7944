/**
 * toResponsesInputItems alone: which results answer a ToolSearch call (the events say which), which
 * of ToolSearch's JSON entries are function tools the API takes, and how array content is sent.
 */
import { describe, expect, it } from 'vitest'
import { toolResultBlock, type ToolResultBlock } from '../../src/events/event.schema.js'
import { toResponsesInputItems } from '../../src/projections/openai-responses.projection.js'
import { requested, stamp } from './events.js'

const T = 'T'
const message = (...content: ToolResultBlock[]) => ({ role: 'user' as const, content })
/** A turn whose call `id` was ToolSearch, answered with `block`. */
const searched = (block: ToolResultBlock) => ({
  message: message(block),
  events: stamp(requested(T, block.tool_use_id, 0, 'ToolSearch', { query: 'x' })),
})
/** The tools a ToolSearch answer carries for a result of this JSON text. */
const found = (content: string, isError = false) =>
  toResponsesInputItems(searched(toolResultBlock('s', content, isError))).flatMap((item) =>
    item.type === 'tool_search_output' ? [item.tools] : [],
  )

const fn = { type: 'function', name: 'Lookup', parameters: { type: 'object' }, strict: true } as const

describe('toResponsesInputItems: which results answer a ToolSearch call', () => {
  // Only a tool.requested names the tool a call was; the same id in other results stays a function call.
  it('a ToolSearch call gets a tool_search_output; the other calls keep function_call_output', () => {
    const events = stamp(
      requested(T, 'e1', 0, 'Echo', { text: 'hi' }),
      requested(T, 's1', 1, 'ToolSearch', { query: 'select:Lookup' }),
      { type: 'tool.loaded', turnId: T, name: 'Lookup', how: 'select', loadedBy: 's1' },
    )
    const items = toResponsesInputItems({
      message: message(toolResultBlock('e1', 'hi', false), toolResultBlock('s1', JSON.stringify([fn]), false)),
      events,
    })
    expect(items).toEqual([
      { type: 'function_call_output', call_id: 'e1', output: 'hi' },
      { type: 'tool_search_output', call_id: 's1', execution: 'client', tools: [fn] },
    ])
  })

  it('given the message alone, a ToolSearch result is a function_call_output with its text', () => {
    const text = JSON.stringify([fn])
    expect(toResponsesInputItems(message(toolResultBlock('s1', text, false)))).toEqual([
      { type: 'function_call_output', call_id: 's1', output: text },
    ])
  })
})

describe('toResponsesInputItems: the tools of a ToolSearch answer', () => {
  // The API has no text for a failed search: an error loads nothing, even when its text is a tool list.
  it('an error result loads no tools, whatever its text', () => {
    expect(found(JSON.stringify([fn]), true)).toEqual([[]])
    expect(found(JSON.stringify([fn]))).toEqual([[fn]])
  })

  // Text that is not a JSON array of tools (a message, an object, broken JSON) loads none.
  it.each([
    ['not JSON', 'No tools matched "slack"'],
    ['a JSON object', JSON.stringify(fn)],
    ['a JSON string', JSON.stringify('Lookup')],
    ['JSON null', 'null'],
    ['an empty array', '[]'],
  ])('%s loads no tools', (_, content) => {
    expect(found(content)).toEqual([[]])
  })

  it('array content (text parts) loads no tools', () => {
    const block: ToolResultBlock = { type: 'tool_result', tool_use_id: 's', content: [{ type: 'text', text: '[]' }] }
    expect(toResponsesInputItems(searched(block))).toEqual([
      { type: 'tool_search_output', call_id: 's', execution: 'client', tools: [] },
    ])
  })

  // Every entry the API would reject (it checks each tool of the request) is left out; the rest are kept.
  it.each<[string, unknown]>([
    ['null', null],
    ['a number', 5],
    ['a string', 'function'],
    ['an array', [fn]],
    ['another tool type', { ...fn, type: 'custom' }],
    ['no type', { name: 'Lookup', parameters: null, strict: null }],
    ['no name', { type: 'function', parameters: null, strict: null }],
    ['a name that is not text', { ...fn, name: 7 }],
    ['parameters as an array', { ...fn, parameters: [] }],
    ['parameters as text', { ...fn, parameters: 'object' }],
    ['parameters missing', { type: 'function', name: 'Lookup', strict: true }],
    ['strict as text', { ...fn, strict: 'yes' }],
    ['strict missing', { type: 'function', name: 'Lookup', parameters: null }],
  ])('an entry that is %s is left out', (_, entry) => {
    expect(found(JSON.stringify([entry, fn]))).toEqual([[fn]])
  })

  // null is a value the API takes for both parameters and strict, and so is strict: false.
  it.each<[string, Record<string, unknown>]>([
    ['parameters null', { ...fn, parameters: null }],
    ['strict null', { ...fn, strict: null }],
    ['strict false', { ...fn, strict: false }],
    ['both null, with a description', { ...fn, description: 'looks up', parameters: null, strict: null }],
  ])('an entry with %s is kept as it is', (_, entry) => {
    expect(found(JSON.stringify([entry]))).toEqual([[entry]])
  })
})

describe('toResponsesInputItems: array content of a function_call_output', () => {
  // Text-only content is one string (the API's plain output); only an image needs the parts list.
  it('text parts without an image are joined by newlines into one string', () => {
    const block: ToolResultBlock = {
      type: 'tool_result',
      tool_use_id: 'c',
      content: [
        { type: 'text', text: 'one' },
        { type: 'tool_reference', tool_name: 'Lookup' },
        { type: 'text', text: 'two' },
      ],
    }
    expect(toResponsesInputItems(message(block))).toEqual([
      {
        type: 'function_call_output',
        call_id: 'c',
        output: 'one\n[tool Lookup is loaded: you can call it now]\ntwo',
      },
    ])
  })

  it('content with an image is a list of parts, the image as a data URL; an image alone too', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } } as const
    const items = toResponsesInputItems(
      message(
        { type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'see' }, image] },
        { type: 'tool_result', tool_use_id: 'b', content: [image] },
      ),
    )
    const url = { type: 'input_image', image_url: 'data:image/png;base64,AAAA' }
    expect(items).toEqual([
      { type: 'function_call_output', call_id: 'a', output: [{ type: 'input_text', text: 'see' }, url] },
      { type: 'function_call_output', call_id: 'b', output: [url] },
    ])
  })
})
