/**
 * Streaming against batch: a model stream carrying 5 tool_use blocks spread over 1 s, each tool
 * taking 200 ms. Measured: the time from the stream's end to the result message.
 */
import { z } from 'zod'
import { buildTool, createKernel } from '../dist/index.js'
import { median } from './measure.mjs'

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const Work = buildTool({
  name: 'Work',
  description: () => 'Takes 200 ms.',
  inputSchema: z.strictObject({ n: z.number() }),
  isConcurrencySafe: () => true,
  call: () => sleep(200).then(() => 'done'),
})

function streamEvents(k) {
  const id = `toolu_${k}`
  return [
    { type: 'content_block_start', index: k, content_block: { type: 'tool_use', id, name: 'Work', input: {} } },
    { type: 'content_block_delta', index: k, delta: { type: 'input_json_delta', partial_json: `{"n":` } },
    { type: 'content_block_delta', index: k, delta: { type: 'input_json_delta', partial_json: `${k}}` } },
    { type: 'content_block_stop', index: k },
  ]
}
const END = [{ type: 'message_delta', delta: { stop_reason: 'tool_use' } }, { type: 'message_stop' }]

/** Blocks complete at `times` (ms after the stream starts); the stream ends at 1000 ms. */
async function streaming(kernel, times) {
  const turn = kernel.startTurn()
  const start = performance.now()
  for (let k = 0; k < times.length; k++) {
    await sleep(Math.max(0, times[k] - (performance.now() - start)))
    for (const event of streamEvents(k)) turn.push(event)
  }
  await sleep(Math.max(0, 1000 - (performance.now() - start)))
  for (const event of END) turn.push(event)
  const ended = performance.now()
  await turn.result()
  return performance.now() - ended
}

/** The same stream, consumed whole before the calls run. */
async function batch(kernel, times) {
  await sleep(1000)
  const ended = performance.now()
  await kernel.runTurn({
    role: 'assistant',
    content: times.map((_, k) => ({ type: 'tool_use', id: `toolu_${k}`, name: 'Work', input: { n: k } })),
  })
  return performance.now() - ended
}

export async function measureStreaming(rounds = 3) {
  const kernel = createKernel({ tools: [Work] })
  const layouts = {
    // A block every 200 ms from the start; the model's closing tokens take the last 200 ms.
    spread: [0, 200, 400, 600, 800],
    // Worst case for early start: the last block completes at the very end of the stream.
    lastAtEnd: [200, 400, 600, 800, 1000],
  }
  const out = {}
  for (const [name, times] of Object.entries(layouts)) {
    const s = []
    const b = []
    for (let r = 0; r < rounds; r++) {
      s.push(await streaming(kernel, times))
      b.push(await batch(kernel, times))
    }
    out[name] = { streaming: median(s), batch: median(b) }
  }
  return out
}
