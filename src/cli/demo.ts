/** `toolkernel demo`: one scripted turn through the kernel, printed as batches, timeline and result. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { createJsonlLog } from '../actors/adapters/jsonl-log.store.js'
import { systemClock } from '../actors/adapters/system.js'
import { createKernel } from '../kernel.js'
import { projectTimeline } from '../projections/timeline.projection.js'
import { demoMessage, demoTools } from './demo-tools.js'
import { streamDemo } from './demo-stream.js'

export interface DemoOptions {
  logPath: string
  out: (line: string) => void
  /** Replay a recorded stream and an interrupted turn instead of the batch turn. */
  stream?: boolean
}

export async function runDemo({ logPath, out, stream = false }: DemoOptions): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'toolkernel-demo-'))
  try {
    mkdirSync(join(root, 'src'))
    writeFileSync(join(root, 'README.md'), '# demo project\nA tiny project for toolkernel to look at.\n')
    writeFileSync(join(root, 'src/main.txt'), 'TODO: write the main program\n')
    const path = resolve(logPath)
    mkdirSync(dirname(path), { recursive: true })
    rmSync(path, { force: true })
    const log = createJsonlLog(path, systemClock)
    const kernel = createKernel({ tools: demoTools(root), cwd: root, log })
    if (stream) {
      out(`toolkernel demo --stream, over ${root}\n`)
      await streamDemo(kernel, out)
      log.close()
      out(`\nEvent log (JSONL): ${path}`)
      return
    }
    out(`toolkernel demo — a scripted assistant message with ${demoMessage.content.length - 1} tool calls, over ${root}\n`)
    const { message, events } = await kernel.runTurn(demoMessage)
    log.close()

    out('Batches (consecutive concurrency-safe calls run together; others alone):')
    const batches = new Map<number, string[]>()
    for (const e of events) if (e.type === 'tool.dispatched') batches.set(e.batch, [...(batches.get(e.batch) ?? []), e.toolUseId])
    for (const [batch, ids] of batches) out(`  batch ${batch}: ${ids.join(', ')}`)

    out('\nTimeline (ms since the turn started):')
    for (const row of projectTimeline(events)) {
      out(`  ${String(row.t).padStart(4)}  ${(row.toolUseId ?? '').padEnd(14)} ${row.type.padEnd(16)} ${row.detail}`)
    }
    out('\nThe tool_result message for the model:')
    out(JSON.stringify(message, null, 2))
    out(`\nEvent log (${events.length} events, JSONL): ${path}`)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}
