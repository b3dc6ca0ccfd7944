// Regenerates docs/statecharts/*.md from the compiled machines (`npm run statecharts`).
import { writeFileSync } from 'node:fs'
import { machines } from '../dist/machines/index.js'
import { statechartPage } from '../dist/machines/statechart-page.js'

for (const [name, machine] of Object.entries(machines)) {
  const path = new URL(`../docs/statecharts/${name}.md`, import.meta.url)
  writeFileSync(path, statechartPage(name, machine))
  console.log(`wrote docs/statecharts/${name}.md`)
}
