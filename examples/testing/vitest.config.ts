import { defineConfig } from 'vitest/config'

// A property test of a tool layer runs hundreds of turns: seconds on a quiet machine, more on a
// busy CI runner — past vitest's 5 s default. The bound is there to catch a hang.
export default defineConfig({ test: { testTimeout: 120_000 } })
