/**
 * The words the model reads when an MCP call fails, held to the house rule of the other tool
 * errors (src/tools/result-text.ts): what happened, why, whether the call may have taken effect,
 * and what the model may do next — and, for MCP, which server.
 */
import { describe, expect, it } from 'vitest'
import { sdkFailure } from '../../src/adapters/mcp-sdk-errors.js'
import * as errors from '../../src/mcp/errors.js'
import { McpCallError } from '../../src/mcp/errors.js'

const limits = { callTimeoutMs: 60_000, maxCallTimeoutMs: 600_000 }
const failure = (error: unknown, aborted = false): McpCallError => {
  const result = sdkFailure(error, 'docs', limits, aborted)
  if (!(result instanceof McpCallError)) throw new Error(`expected an McpCallError, got ${String(result)}`)
  return result
}

const texts: Record<string, string> = {
  cutOff: errors.cutOffText('docs', 'the server process exited with code 3'),
  down: errors.downText('docs', 'the server process exited with code 3'),
  timeout: errors.timeoutText('docs', 60, false),
  hardTimeout: errors.timeoutText('docs', 600, true),
  protocol: errors.protocolText('docs', 'line 3 is not JSON'),
  outputSchema: errors.outputSchemaText('docs', 'count: expected a number'),
  cancelled: failure(new Error('user pressed Esc'), true).message,
  serverError: failure(new Error('Unknown tool: searc')).message,
  serverFailure: failure(new Error('database is down')).message,
}

describe('MCP error texts', () => {
  it.each(Object.entries(texts))(
    '%s: names the server, starts as a sentence, says what the model may do next',
    (_, text) => {
      expect(text).toMatch(/^[A-Z]/)
      expect(text).toMatch(/MCP server "docs"/)
      expect(text).toMatch(/\.$/)
      // What next: check first, try again, use another tool, or ask the user.
      expect(text).toMatch(/check before calling it again|try again|use another tool|ask the user|ask for less work/i)
    },
  )

  it('says whether the call may have taken effect', () => {
    expect(texts.down).toMatch(/had no effect/)
    for (const key of ['cutOff', 'timeout', 'protocol', 'cancelled'])
      expect(texts[key], key).toMatch(/may (or may not )?have (had partial effects|taken effect)/)
    expect(texts.outputSchema).toMatch(/The tool ran/)
  })

  it("keeps the server's own words", () => {
    expect(texts.serverError).toContain('Unknown tool: searc')
    expect(texts.serverFailure).toContain('database is down')
    expect(texts.cancelled).toContain('user pressed Esc')
  })
})
