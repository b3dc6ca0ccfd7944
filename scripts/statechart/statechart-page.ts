import type { AnyStateMachine } from 'xstate'
import { toMermaid } from './statechart.js'

/** The Markdown page for one machine: a header saying it is generated, and the diagram. */
export function statechartPage(name: string, machine: AnyStateMachine): string {
  return [
    `# ${name} machine`,
    '',
    `Generated from \`src/machines/${name}.machine.ts\` by \`npm run statecharts\`; do not edit.`,
    'A test fails when this page no longer matches the machine.',
    '',
    '```mermaid',
    toMermaid(machine).trimEnd(),
    '```',
    '',
  ].join('\n')
}
