/**
 * `toolkernel demo --stream`: replays a recorded model stream with its timing, so safe calls
 * finish while the model is still talking; then interrupts a running command.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Kernel } from '../kernel.js'
import { parseSSE } from '../intake/sse.js'
import { summarizeTurn } from './turn-summary.js'

const EVENT_GAP_MS = 25
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function streamDemo(
  kernel: Kernel,
  root: string,
  streamFile: string,
  out: (line: string) => void,
  verbose = false,
): Promise<void> {
  // The recording's paths point at /project; they are mapped onto the temporary copy.
  const body = readFileSync(streamFile, 'utf8').replaceAll('/project', JSON.stringify(root).slice(1, -1))
  const events = parseSSE(body)
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
  if (verbose) out(JSON.stringify(first.message, null, 2))
  else for (const line of summarizeTurn(first.events)) out(`  ${line}`)

  out('\n2. An interrupted turn: a slow command is running and a Write waits behind it; the user presses Esc:\n')
  const controller = new AbortController()
  const second = kernel.startTurn({ signal: controller.signal })
  second.addToolUse({
    id: 'toolu_i1_count',
    name: 'Bash',
    input: { command: 'for i in 1 2 3 4 5 6 7 8 9 10; do echo "step $i"; sleep 0.1; done' },
  })
  second.addToolUse({
    id: 'toolu_i2_write',
    name: 'Write',
    input: { file_path: join(root, 'NOTES.md'), content: 'counted to ten\n' },
  })
  second.end('tool_use')
  // The user presses Esc once the command has printed a few lines.
  let lines = 0
  for await (const update of second.updates()) {
    if (
      update.type === 'progress' &&
      update.toolUseId === 'toolu_i1_count' &&
      (lines += String(update.data).split('\n').length - 1) >= 3
    )
      break
  }
  controller.abort('the user pressed Esc')
  const interrupted = await second.result()
  if (verbose) out(JSON.stringify(interrupted.message, null, 2))
  else for (const line of summarizeTurn(interrupted.events)) out(`  ${line}`)
}
