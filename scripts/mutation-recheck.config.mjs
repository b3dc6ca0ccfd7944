// The vitest configuration of scripts/mutation-recheck.mjs: the given tests, with MUT_TARGET (a
// source file) resolved to MUT_FILE (its mutated copy) wherever it is imported.
import { dirname, resolve } from 'node:path'
import { defineConfig } from 'vitest/config'

const target = process.env.MUT_TARGET ?? ''
const mutated = process.env.MUT_FILE ?? ''

export default defineConfig({
  root: resolve(new URL('..', import.meta.url).pathname),
  plugins: [
    {
      name: 'swap-mutant',
      enforce: 'pre',
      resolveId(source, importer) {
        if (importer === undefined || !source.startsWith('.')) return null
        return resolve(dirname(importer), source).replace(/\.js$/, '.ts') === target ? mutated : null
      },
    },
  ],
  test: {
    include: (process.env.MUT_TESTS ?? '').split(','),
    testTimeout: 30_000,
    pool: 'forks',
    setupFiles: ['test/mutation.setup.ts'],
  },
})
