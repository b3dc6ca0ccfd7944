/**
 * Server-sent events, as the Anthropic and OpenAI streaming APIs send them: blocks of `event:`
 * and `data:` lines separated by blank lines. For replaying recorded streams (the demo, tests,
 * the CLI); apps using an SDK get parsed events already.
 */

/**
 * The `data` payloads of an SSE body, each parsed as JSON; OpenAI's `[DONE]` sentinel is kept as
 * the string `'[DONE]'`.
 *
 * @throws SyntaxError naming the line of a `data` payload that is not JSON.
 */
export function parseSSE(body: string): unknown[] {
  const payloads: unknown[] = []
  let data: string[] = []
  let startLine = 0
  const flush = (): void => {
    if (data.length === 0) return
    const text = data.join('\n')
    data = []
    if (text === '[DONE]') {
      payloads.push('[DONE]')
      return
    }
    try {
      payloads.push(JSON.parse(text))
    } catch (error) {
      throw new SyntaxError(`SSE data at line ${startLine} is not JSON: ${(error as Error).message}`)
    }
  }
  body.split(/\r?\n/).forEach((line, i) => {
    if (line === '') flush()
    else if (line.startsWith('data:')) {
      if (data.length === 0) startLine = i + 1
      data.push(line.slice(line.startsWith('data: ') ? 6 : 5))
    }
  })
  flush()
  return payloads
}
