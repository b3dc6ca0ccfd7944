/**
 * A call's flags on its OTel span (decision 141): read-only, destructive and open-world always;
 * its names for people (they carry a path or a command) only where content is captured.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Read, Write } from '../../src/index.js'
import { projectTelemetry } from '../../src/projections/telemetry.projection.js'
import { assistant, testKernel } from '../helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'tk-otel-flags-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('flag attributes', () => {
  it('every call span says what the call said about itself', async () => {
    writeFileSync(join(dir, 'a.txt'), 'alpha\n')
    const kernel = testKernel([Read, Write], { cwd: dir, permissions: { allow: ['Write'] } })
    await kernel.ready()
    const { events } = await kernel.runTurn(
      assistant(
        ['r', 'Read', { file_path: join(dir, 'a.txt') }],
        ['w', 'Write', { file_path: join(dir, 'b'), content: 'b' }],
      ),
    )
    const spans = (capture: boolean) =>
      projectTelemetry(events, { captureContent: capture }).spans.filter((span) => span.kind === 'call')
    expect(spans(false).map((span) => span.attributes)).toEqual([
      expect.objectContaining({
        'toolkernel.tool.read_only': true,
        'toolkernel.tool.destructive': false,
        'toolkernel.tool.open_world': false,
      }),
      expect.objectContaining({ 'toolkernel.tool.read_only': false, 'toolkernel.tool.destructive': true }),
    ])
    expect(spans(false)[0]?.attributes['toolkernel.tool.activity']).toBeUndefined()
    expect(spans(true)[0]?.attributes).toMatchObject({
      'toolkernel.tool.user_facing_name': 'Read',
      'toolkernel.tool.activity': `Reading ${join(dir, 'a.txt')}`,
    })
  })
})
