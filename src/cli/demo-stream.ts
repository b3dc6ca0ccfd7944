/**
 * `toolkernel demo --stream`: replays a recorded model stream with its timing, so safe calls
 * finish while the model is still talking; then interrupts a second turn mid-call.
 */
import { readFileSync } from 'node:fs'
import type { Kernel } from '../kernel.js'
import { parseSSE } from '../intake/sse.js'

const EVENT_GAP_MS = 25
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function streamDemo(kernel: Kernel, out: (line: string) => void): Promise<void> {
  const events = parseSSE(readFileSync(new URL('../../fixtures/demo/stream.sse', import.meta.url), 'utf8'))
  out(`1. A recorded stream (fixtures/demo/stream.sse, ${events.length} events, one every ${EVENT_GAP_MS} ms):\n`)
  const t0 = Date.now()
  const at = () => `+${String(Date.now() - t0).padStart(4)} ms`
  const turn = kernel.startTurn()
  const watching = (async () => {
    for await (const update of turn.updates()) {
      if (update.type === 'started') out(`  ${at()}  ${update.toolUseId} started`)
      if (update.type === 'completed') out(`  ${at()}  ${update.toolUseId} finished (${update.outcome})`)
    }
  })()
  for (const event of events) {
    turn.push(event)
    if ((event as { type?: string }).type === 'message_stop') out(`  ${at()}  the stream ended (message_stop)`)
    else await sleep(EVENT_GAP_MS)
  }
  const first = await turn.result()
  await watching
  out(`  ${at()}  result message ready: ${first.message.content.length} tool_result blocks, in tool_use order`)

  out('\n2. An interrupted turn: Count (stops when interrupted) is running, Note waits behind it; the user presses Esc:\n')
  const controller = new AbortController()
  const second = kernel.startTurn({ signal: controller.signal })
  second.addToolUse({ id: 'toolu_i1_count', name: 'Count', input: { to: 10 } })
  second.addToolUse({ id: 'toolu_i2_note', name: 'Note', input: { line: 'counted to ten' } })
  second.end('tool_use')
  await sleep(200)
  controller.abort('the user pressed Esc')
  const { message } = await second.result()
  for (const block of message.content) out(`  ${block.tool_use_id}: ${String(block.content).replace(/\n/g, '\\n')}`)
}
