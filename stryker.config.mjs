// StrykerJS over the engine's folders. `npm run mutation` (scripts/mutation.mjs) runs it once per
// folder with TK_MUTATE set, so each folder's report is kept even when a later one is stopped;
// TK_MUTATE may also name one file. The permission attack suite (test/permissions/attacks.*)
// runs only for targets under src/permissions, whose mutants it is there to kill.
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
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  ignorePatterns: [
    'dist',
    'reports',
    'coverage',
    'bench',
    'docs',
    ...(target?.startsWith('src/permissions') === true ? [] : ['test/permissions/attacks.*']),
  ],
  buildCommand: 'npm run build --silent',
}
