import { describe, expect, it } from 'vitest'
import { machines } from '../../src/machines/index.js'
import { statechartPage } from '../../scripts/statechart/statechart-page.js'

describe('docs/statecharts', () => {
  for (const [name, machine] of Object.entries(machines)) {
    it(`${name}.md matches the machine (run \`npm run statecharts\` after changing it)`, async () => {
      // `npm run statecharts` runs this test with -u, which rewrites the page; CI never writes.
      await expect(statechartPage(name, machine)).toMatchFileSnapshot(`../../docs/statecharts/${name}.md`)
    })
  }

  it('draws every step, where its events lead, and the three terminal states', () => {
    const page = statechartPage('tool-call', machines['tool-call'])
    for (const step of ['parse', 'validate', 'preHook', 'permission', 'call', 'budget', 'map', 'postHook', 'emit']) {
      expect(page).toContain(`  ${step}: ${step}`)
    }
    // A call moves to the step it rests in (waits), passing through steps that answer at once.
    expect(page).toContain('parse --> call: decided [at(call)] / fold')
    expect(page).toContain('call --> succeeded: decided [answered(success)] / fold')
    expect(page).not.toMatch(/--> map: decided \[/)
    expect(page).toContain('map: map\\nmapping the result: answers at once')
    for (const end of ['succeeded', 'failed', 'cancelled']) expect(page).toContain(`${end} --> [*]`)
  })
})
