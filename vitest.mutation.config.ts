// The suite StrykerJS runs for each mutant (stryker.config.mjs): every test but the ones that
// drive other programs around the engine (a browser, PostgreSQL, MCP servers, the model SDKs over
// HTTP, packed consumer projects). Those cover the engine's code in-process too, so with per-test
// coverage each mutant they touch would rerun them, for minutes, and they check the wiring to the
// outside, which the unit and property tests of the mutated folders check from the inside. So are
// the docs' tests (the snippet compile alone takes minutes, and checks no engine code), the loop
// and AI SDK tests (model APIs over HTTP, as test/sdk), and the MCP spans of test/otel (a real
// MCP server, as test/mcp).
//
// Every target runs the same suite: per-test coverage reruns only the tests that reach a mutant.
// (An `include` of test/permissions alone for permission targets was here; mergeConfig appends
// arrays, so it never narrowed anything, and the per-file runs took minutes with the whole suite.)
// test/mutation.setup.ts clears the shell analysis caches before each test, so a mutant behind a
// cache runs.
//
// TK_MUTATION_SUITE=engine narrows the suite further, for folders every test reaches (src/actors/turn,
// src/replay): it leaves out the tests of tools, sandboxes, adapters, the CLI's child processes, the testing kit and
// the attack files, which reach a turn the way the engine's own tests do but spend their time in
// real processes, so a surviving mutant, which runs every test that covers it, costs minutes. Fewer
// tests can only kill fewer mutants, so such a run's score is a floor (docs/quality.md says which
// runs were narrowed; decision 178).
import { defineConfig, mergeConfig } from 'vitest/config'
import base from './vitest.config.js'

const narrowed =
  process.env.TK_MUTATION_SUITE === 'engine'
    ? [
        'test/tools/builtin/**',
        'test/sandbox/**',
        'test/adapters/**',
        // test/cli runs the built command as a child process, whose coverage the per-test analysis
        // never sees, so those tests run for no mutant anyway; stand-ins.test.ts runs replay
        // in-process and stays.
        'test/cli/{demo,export,help,log-commands,pool-replay,replay-checks}.test.ts',
        'test/testing/**',
        'test/attacks/**',
        'test/approvals/hand-over.test.ts',
      ]
    : []

export default mergeConfig(
  base,
  defineConfig({
    test: {
      setupFiles: ['test/mutation.setup.ts'],
      exclude: [
        'node_modules/**',
        'test/browser/**',
        'test/consumers/**',
        'test/docs/**',
        'test/approvals/ai-sdk.test.ts',
        'test/loop/**',
        'test/otel/mcp-spans.test.ts',
        'test/examples/**',
        'test/mcp/**',
        'test/model-api/**',
        'test/sdk/**',
        'test/store/**',
        'test/types/**',
        ...narrowed,
      ],
    },
  }),
)
