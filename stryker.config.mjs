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
  // A rerun of a target retests only the mutants whose code or covering tests changed since its
  // last run (`npx stryker run --force` retests all); the file is per target, like the report.
  incremental: true,
  incrementalFile: `reports/mutation/incremental/${slug}.json`,
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
