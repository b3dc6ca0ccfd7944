/** The page's CSP hashes: the pure SHA-256 agrees with node:crypto on every padding boundary and on UTF-8. */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { sha256Base64 } from '../../src/projections/timeline-sha256.js'

describe('sha256Base64', () => {
  it.each([
    ['empty', ''],
    ['abc', 'abc'],
    ['55 bytes (one block with its length)', 'x'.repeat(55)],
    ['56 bytes (the length spills into a second block)', 'x'.repeat(56)],
    ['64 bytes', 'x'.repeat(64)],
    ['multi-byte UTF-8 over many blocks', 'é€😀\u2028</script>'.repeat(1000)],
  ])('%s', (_, text) => {
    expect(sha256Base64(text)).toBe(createHash('sha256').update(text, 'utf8').digest('base64'))
  })
})
