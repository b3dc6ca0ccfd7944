// Folds StrykerJS's JSON reports (reports/mutation/*.json, one per run of scripts/mutation.mjs)
// into a score per folder and prints the table docs/quality.md keeps. Where two reports cover the
// same source file, the newer one counts. Score = (killed + timeout) over killed, timeout,
// survived and no coverage (compile errors and ignored mutants are not counted).
import { readdirSync, readFileSync, statSync } from 'node:fs'

const dir = new URL('../reports/mutation/', import.meta.url)
const reports = readdirSync(dir)
  .filter((name) => name.endsWith('.json'))
  .map((name) => ({ path: new URL(name, dir), mtime: statSync(new URL(name, dir)).mtimeMs }))
  .sort((a, b) => a.mtime - b.mtime)
if (reports.length === 0) {
  console.error('no report under reports/mutation/: run `npm run mutation` first')
  process.exit(1)
}
const byFile = new Map()
for (const { path } of reports) {
  const report = JSON.parse(readFileSync(path, 'utf8'))
  for (const [file, { mutants }] of Object.entries(report.files)) byFile.set(file.replace(/^.*?src\//, 'src/'), mutants)
}
const folders = new Map()
for (const [file, mutants] of byFile) {
  const parts = file.split('/')
  const folder = parts.slice(0, parts[1] === 'actors' ? 3 : 2).join('/')
  const tally = folders.get(folder) ?? { killed: 0, survived: 0, noCoverage: 0, timeout: 0 }
  for (const m of mutants) {
    if (m.status === 'Killed') tally.killed++
    else if (m.status === 'Timeout') tally.timeout++
    else if (m.status === 'Survived') tally.survived++
    else if (m.status === 'NoCoverage') tally.noCoverage++
  }
  folders.set(folder, tally)
}
console.log('| folder | killed | timeout | survived | no coverage | score |')
console.log('|---|---|---|---|---|---|')
for (const [folder, t] of [...folders].sort()) {
  const detected = t.killed + t.timeout
  const valid = detected + t.survived + t.noCoverage
  const score = valid === 0 ? 'n/a' : `${((100 * detected) / valid).toFixed(1)} %`
  console.log(`| ${folder} | ${t.killed} | ${t.timeout} | ${t.survived} | ${t.noCoverage} | ${score} |`)
}

if (process.argv.includes('--survivors')) {
  for (const [file, mutants] of [...byFile].sort()) {
    const missed = mutants.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')
    if (missed.length === 0) continue
    console.log(`\n${file}: ${missed.length} of ${mutants.length}`)
    for (const m of missed.sort((a, b) => a.location.start.line - b.location.start.line)) {
      const replacement = (m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 80)
      console.log(
        `  ${m.location.start.line}: ${m.mutatorName} → ${replacement}${m.status === 'NoCoverage' ? ' (no test runs it)' : ''}`,
      )
    }
  }
}
