import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

// Speed (docs/decisions/testing-and-quality.md, 158): most of a test file's cost was loading the
// engine's modules again for each file, so files share their worker's modules (isolate: false; a
// file that mocks a module resets the registry around its import), and a 2-core machine runs two
// workers, not one: much of the suite waits on real child processes, servers and the disk.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Holds every replay a test makes to the log's pace (the file says why).
    setupFiles: ['test/replay-pacing.setup.ts'],
    // Bounds that catch a hang, never a slow machine: a loaded 2-core machine needs tens of seconds
    // for a file's real servers and processes (docs/quality.md §Suite time).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    isolate: false,
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
})
