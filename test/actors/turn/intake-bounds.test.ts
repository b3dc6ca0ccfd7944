/** Input that the log could not serialise is refused at intake with a clear error, never a throw. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createJsonlLog, projectMessages } from '../../../src/index.js'
import { assistant, Echo, fixedClock, testKernel } from '../../helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'tk-intake-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function nested(levels: number): unknown {
  let value: unknown = 'deep'
  for (let i = 0; i < levels; i++) value = { a: value }
  return value
}

describe('tool input the log cannot hold', () => {
  it('100,000 nested levels: answered with an error naming the depth, and the JSONL log stays readable', async () => {
    const clock = fixedClock()
    const log = createJsonlLog(join(dir, 'deep.jsonl'), clock)
    const kernel = testKernel([Echo], { log, ports: { clock } })
    const { message } = await kernel.runTurn(
      assistant(['deep', 'Echo', { text: nested(100_000) }], ['ok', 'Echo', { text: 'fine' }]),
    )
    expect(message.content[0]?.is_error).toBe(true)
    expect(String(message.content[0]?.content)).toMatch(/nested more than 256 levels deep/)
    expect(message.content[1]?.content).toBe('fine')
    log.close()
    expect(projectMessages(createJsonlLog(join(dir, 'deep.jsonl'), fixedClock()).read())).toEqual([message])
  })

  it('a cycle, a BigInt or a function in the input: answered with an error, nothing thrown', async () => {
    const cyclic: Record<string, unknown> = { text: 'x' }
    cyclic.self = cyclic
    const kernel = testKernel([Echo])
    const { message } = await kernel.runTurn(
      assistant(['c', 'Echo', cyclic], ['b', 'Echo', { text: 10n }], ['f', 'Echo', { text: () => 1 }]),
    )
    expect(message.content.map((b) => b.is_error)).toEqual([true, true, true])
    expect(String(message.content[0]?.content)).toMatch(/refers to itself/)
    expect(String(message.content[1]?.content)).toMatch(/a bigint is not JSON/)
    expect(String(message.content[2]?.content)).toMatch(/a function is not JSON/)
  })
})
