// StrykerJS over the engine's folders. `npm run mutation` (scripts/mutation.mjs) runs it once per
// folder with TK_MUTATE set, so each folder's report is kept even when a later one is stopped;
// TK_MUTATE may also name one file. The permission attack suite (test/permissions/attacks.*, a
// real kernel and shell per case) is left out for time unless TK_MUTATION_ATTACKS=1: each mutant
// it covers would rerun hundreds of its cases.
const all = ['src/machines', 'src/actors', 'src/projections', 'src/permissions', 'src/replay', 'src/events']
const target = process.env.TK_MUTATE
const mutate = target ? [target.endsWith('.ts') ? target : `${target}/**/*.ts`] : all.map((f) => `${f}/**/*.ts`)
const slug = target
  ? target
      .replace(/^src\//, '')
      .replace(/\.ts$/, '')
      .replaceAll('/', '-')
  : 'all'

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.ts' },
  coverageAnalysis: 'perTest',
  mutate,
  ignoreStatic: true,
  concurrency: 2,
  timeoutMS: 10000,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: `reports/mutation/${slug}.json` },
  // Not incremental: an incremental rerun kept the old "survived" of mutants that new tests kill
  // (19 of wrappers.ts's 55, each killed when checked alone). `npm run mutation:recheck` checks a
  // report's survivors against new tests in minutes; the score of record is a full run.
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  ignorePatterns: [
    'dist',
    'reports',
    'coverage',
    'bench',
    'docs',
    ...(process.env.TK_MUTATION_ATTACKS === '1' ? [] : ['test/permissions/attacks.*']),
  ],
  buildCommand: 'npm run build --silent',
}
