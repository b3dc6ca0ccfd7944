// The suite StrykerJS runs for each mutant (stryker.config.mjs): every test but the ones that
// drive other programs around the engine (a browser, PostgreSQL, MCP servers, the model SDKs over
// HTTP, packed consumer projects). Those cover the engine's code in-process too, so with per-test
// coverage each mutant they touch would rerun them, for minutes, and they check the wiring to the
// outside, which the unit and property tests of the mutated folders check from the inside.
import { defineConfig, mergeConfig } from 'vitest/config'
import base from './vitest.config.js'

export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [
        'node_modules/**',
        'test/browser/**',
        'test/consumers/**',
        'test/examples/**',
        'test/mcp/**',
        'test/model-api/**',
        'test/sdk/**',
        'test/store/**',
        'test/types/**',
      ],
    },
  }),
)
