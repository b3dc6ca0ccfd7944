// Folds StrykerJS's JSON report into a score per folder (killed + timeout over all but ignored
// and no-coverage-excluded) and prints the table docs/quality.md keeps (`npm run mutation`).
import { readFileSync } from 'node:fs'

const report = JSON.parse(readFileSync(new URL('../reports/mutation/mutation.json', import.meta.url), 'utf8'))
const folders = new Map()
for (const [file, { mutants }] of Object.entries(report.files)) {
  const parts = file.replace(/^.*?src\//, 'src/').split('/')
  const folder = parts.slice(0, parts[1] === 'actors' ? 3 : 2).join('/')
  const tally = folders.get(folder) ?? { killed: 0, survived: 0, noCoverage: 0, timeout: 0, other: 0 }
  for (const m of mutants) {
    if (m.status === 'Killed') tally.killed++
    else if (m.status === 'Timeout') tally.timeout++
    else if (m.status === 'Survived') tally.survived++
    else if (m.status === 'NoCoverage') tally.noCoverage++
    else tally.other++
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
