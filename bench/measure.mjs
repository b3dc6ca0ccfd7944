/**
 * Measurement helpers: interleaved rounds (so the machine's noise hits every variant alike),
 * medians, and ratios against a baseline measured in the same run.
 */
export async function compare(variants, { n, rounds = 7, warmup = 1000 }) {
  const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
  for (const run of Object.values(variants)) await run(warmup)
  for (let r = 0; r < rounds; r++) {
    for (const [name, run] of Object.entries(variants)) {
      const start = performance.now()
      await run(n)
      samples[name].push(((performance.now() - start) * 1000) / n)
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]))
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[sorted.length >> 1]
}

/**
 * Prints one row of issue 17's table as `target: what | value | target | verdict`, which
 * bench/run.mjs gathers from every bench into the summary at the top of docs/benchmarks.md.
 * `atMost` (or `atLeast`) is the target; `unit` follows the value.
 */
export function target(what, value, { atMost, atLeast, unit = '', digits = 2 }) {
  const met = atMost !== undefined ? value <= atMost : value >= atLeast
  const goal = atMost !== undefined ? `≤ ${atMost}${unit}` : `≥ ${atLeast}${unit}`
  console.log(`target: ${what} | ${value.toFixed(digits)}${unit} | ${goal} | ${met ? 'met' : 'not met'}`)
}

/** A process runner that answers at once, as `true` would: the kernel's share of a Bash call alone. */
export const instantRunner = {
  run: async () => ({
    output: '',
    tail: '',
    totalBytes: 0,
    omittedBytes: 0,
    exitCode: 0,
    timedOut: false,
    aborted: false,
  }),
}

/** The benches' no-op tool, read-only and concurrency-safe, built with the build's own `buildTool`. */
export function noopTool(buildTool, z) {
  return buildTool({
    name: 'Noop',
    description: () => 'Does nothing.',
    inputSchema: z.object({}),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    call: async () => 'ok',
  })
}

/** An assistant message of `calls` Noop tool_use blocks, ids unique per turn `t`. */
export function noopTurn(t, calls) {
  return {
    role: 'assistant',
    stop_reason: 'tool_use',
    content: Array.from({ length: calls }, (_, i) => ({ type: 'tool_use', id: `t${t}_${i}`, name: 'Noop', input: {} })),
  }
}
