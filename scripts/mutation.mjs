// `npm run mutation [target ...]`: StrykerJS once per target (a folder under src/ or one file),
// each run writing its own report under reports/mutation/, then the scores folded from all of
// them. With no target it runs the six engine folders in turn; a stopped run keeps the folders
// already done. Not part of `npm test` (several hours on two cores).
import { spawnSync } from 'node:child_process'

const folders = ['src/machines', 'src/projections', 'src/events', 'src/replay', 'src/actors', 'src/permissions']
const targets = process.argv.length > 2 ? process.argv.slice(2) : folders
for (const target of targets) {
  console.log(`\n# stryker: ${target}`)
  // TK_MUTATION caps the property tests' runs (test/runs.ts).
  const env = { ...process.env, TK_MUTATE: target, TK_MUTATION: '1' }
  const run = spawnSync('npx', ['stryker', 'run'], { stdio: 'inherit', env })
  if (run.status !== 0) process.exit(run.status ?? 1)
}
const fold = spawnSync(process.execPath, [new URL('./mutation-scores.mjs', import.meta.url).pathname], {
  stdio: 'inherit',
})
process.exit(fold.status ?? 1)
