// `node scripts/mutation-recheck.mjs <report.json> <src file> <test globs…>`: takes the mutants a
// StrykerJS report left alive in one source file and checks each again against the given tests,
// without Stryker and without writing to the tree: the mutant (the report's own location and
// replacement, over the report's own source) goes to a temp file that a resolve hook swaps in for
// the original (scripts/mutation-recheck.config.mjs). Minutes instead of a full run, to see which
// survivors new tests kill; the score of record is still the next `npm run mutation` run.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, normalize, resolve } from 'node:path'

const [reportPath, rel, ...tests] = process.argv.slice(2)
if (reportPath === undefined || rel === undefined || tests.length === 0) {
  console.error('usage: node scripts/mutation-recheck.mjs <report.json> <src file> <test globs…>')
  process.exit(2)
}
const root = resolve(new URL('..', import.meta.url).pathname)
const report = JSON.parse(readFileSync(reportPath, 'utf8'))
const entry = Object.entries(report.files).find(([file]) => file.endsWith(rel))?.[1]
if (entry === undefined) {
  console.error(`${rel} is not in ${reportPath}`)
  process.exit(2)
}
const target = join(root, rel)
const work = mkdtempSync(join(tmpdir(), 'toolkernel-recheck-'))
const mutated = join(work, basename(rel))
// The copy lives elsewhere: its relative imports are made absolute.
const absolute = (text) =>
  text.replace(/from '(\.{1,2}\/[^']+)'/g, (_, path) => `from '${normalize(join(dirname(target), path))}'`)
const lineStarts = [0]
for (const line of entry.source.split('\n')) lineStarts.push(lineStarts.at(-1) + line.length + 1)
const offset = ({ line, column }) => lineStarts[line - 1] + column - 1

function run(source) {
  writeFileSync(mutated, absolute(source))
  const env = { ...process.env, MUT_TARGET: target, MUT_FILE: mutated, MUT_TESTS: tests.join(',') }
  const config = join(root, 'scripts/mutation-recheck.config.mjs')
  return spawnSync('npx', ['vitest', 'run', '--config', config, '--silent'], { cwd: root, env, encoding: 'utf8' })
    .status
}

try {
  if (run(entry.source) !== 0) {
    console.error(`the tests fail on the report's own source of ${rel} (did it change since the run?)`)
    process.exit(1)
  }
  const alive = entry.mutants.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')
  let killed = 0
  for (const m of alive.sort((a, b) => a.location.start.line - b.location.start.line)) {
    const [from, to] = [offset(m.location.start), offset(m.location.end)]
    const status =
      run(entry.source.slice(0, from) + m.replacement + entry.source.slice(to)) === 0 ? 'survived' : 'KILLED'
    if (status === 'KILLED') killed++
    const span = entry.source.slice(from, to).replace(/\s+/g, ' ').slice(0, 50)
    console.log(
      `${m.id} line ${m.location.start.line} ${status} ${m.mutatorName}: ${span} → ${m.replacement.slice(0, 40)}`,
    )
  }
  console.log(`# ${rel}: ${killed} of ${alive.length} survivors killed by ${tests.join(' ')}`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
