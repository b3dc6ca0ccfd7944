// The suite StrykerJS runs for each mutant (stryker.config.mjs): every test but the ones that
// drive other programs around the engine (a browser, PostgreSQL, MCP servers, the model SDKs over
// HTTP, packed consumer projects). Those cover the engine's code in-process too, so with per-test
// coverage each mutant they touch would rerun them, for minutes, and they check the wiring to the
// outside, which the unit and property tests of the mutated folders check from the inside.
//
// A permissions target (TK_MUTATE=src/permissions…) runs the folder's own tests (test/permissions):
// every kernel test evaluates the policy, so with all of them each of its ~3,800 mutants reran
// hundreds of kernel tests, and two runs did not finish in an hour. test/mutation.setup.ts clears
// the shell analysis caches before each test, so a mutant behind a cache runs.
import { defineConfig, mergeConfig } from 'vitest/config'
import base from './vitest.config.js'

const own =
  process.env.TK_MUTATE?.startsWith('src/permissions') === true ? ['test/permissions/**/*.test.ts'] : undefined

export default mergeConfig(
  base,
  defineConfig({
    test: {
      ...(own === undefined ? {} : { include: own }),
      setupFiles: ['test/mutation.setup.ts'],
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
