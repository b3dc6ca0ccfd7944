/**
 * The layers of docs/conventions.md §Layers, checked on every `npm test` (npm run lint). A rule that is
 * only written down drifts; this one fails the build.
 */
const IO =
  '^(node:)?(fs|fs/promises|child_process|net|http|https|http2|worker_threads|dgram|tls|readline)$|^(execa|pg|web-tree-sitter|puppeteer-core)$|^@modelcontextprotocol/(client|server|sdk)|^@opentelemetry/(exporter|sdk)'

/**
 * The floors of src/, lowest first: a module imports from its own floor or the ones below, never
 * from a floor above, types included. The rooms moved so that this holds (recovery, the MCP entry,
 * the Bash tool's shell analysis, ToolSource) also have rules of their own below, which say why.
 */
const FLOORS = [
  { name: 'leaves', paths: ['events/', 'util/', 'version\\.ts$'] },
  { name: 'ports', paths: ['ports/'] },
  { name: 'pure-models', paths: ['machines/', 'projections/'] },
  { name: 'the-tool-contract', paths: ['tools/'] },
  { name: 'the-domain', paths: ['permissions/', 'intake/', 'mcp/', 'otel/'] },
  { name: 'adapters', paths: ['adapters/'] },
  { name: 'hooks', paths: ['hooks/'] },
  { name: 'actors', paths: ['actors/'] },
  {
    name: 'the-composition-root',
    paths: [
      'kernel\\.ts$',
      'kernel-options\\.ts$',
      'session-config\\.ts$',
      'sandbox-config\\.ts$',
      'child-scope\\.ts$',
      'call-tool\\.ts$',
    ],
  },
  { name: 'what-drives-a-kernel', paths: ['replay/', 'testing/', 'ai-sdk/', 'postgres/', 'loop/'] },
  { name: 'entries', paths: ['cli/', 'index\\.ts$', 'internal\\.ts$', 'mcp\\.ts$', 'require\\.cts$'] },
]
const onFloors = (floors) => `^src/(${floors.flatMap((floor) => floor.paths).join('|')})`
const named = (floors) =>
  floors
    .flatMap((floor) => floor.paths)
    .map((path) => path.replace(/\\|\$/g, ''))
    .join(', ')
const floorRules = [
  ...FLOORS.slice(0, -1).map((floor, i) => ({
    name: `no-import-up-from-${floor.name}`,
    severity: 'error',
    comment: `${named([floor])} stand below ${named(FLOORS.slice(i + 1))}: imports run down the floors only.`,
    from: { path: onFloors([floor]) },
    to: { path: onFloors(FLOORS.slice(i + 1)) },
  })),
  {
    name: 'every-module-on-a-floor',
    severity: 'error',
    comment: 'A new folder or top-level file of src/ takes its place in FLOORS (.dependency-cruiser.cjs) first.',
    from: { path: '^src/', pathNot: onFloors(FLOORS) },
    to: {},
  },
]

module.exports = {
  forbidden: [
    ...floorRules,
    { name: 'no-cycles', severity: 'error', comment: 'No import cycles.', from: {}, to: { circular: true } },
    {
      name: 'events-import-only-zod',
      severity: 'error',
      comment: 'events/ is the log format: it imports only zod, itself, and lazyObject (its union is built on first use, decision 171).',
      from: { path: '^src/events/' },
      to: { pathNot: '^src/events/|^src/util/lazy-object[.]ts$|zod', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'projections-import-only-events',
      severity: 'error',
      comment: 'projections/ are pure reducers of events (immer for their state).',
      from: { path: '^src/projections/' },
      to: { pathNot: '^src/(events|projections)/|immer' },
    },
    {
      name: 'machines-are-pure',
      severity: 'error',
      comment: 'machines/ import events, xstate and tool types only: no I/O, no kernel.',
      from: { path: '^src/machines/' },
      to: { pathNot: '^src/(events|machines)/|xstate', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'tools-use-the-contract',
      severity: 'error',
      comment:
        'Tools use the contract and ports, never the kernel, actors, permissions or hooks. The shell analysis too reaches a tool through its ports (ports.shell, the ShellAnalyzer the kernel hands it).',
      from: { path: '^src/tools/' },
      to: {
        path: '^src/(kernel|actors|permissions|hooks|replay|cli|intake|projections|adapters|mcp|otel|ai-sdk|testing)',
      },
    },
    {
      name: 'io-only-in-adapters',
      severity: 'error',
      comment: 'File, process, network, database and parser I/O live in src/adapters (the CLI is an app).',
      from: { path: '^src/', pathNot: '^src/(adapters|cli)/' },
      to: { path: IO, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'ports-are-types',
      severity: 'error',
      comment: 'ports/ declare capabilities: types only.',
      from: { path: '^src/ports/' },
      to: { dependencyTypesNot: ['type-only'], pathNot: '^src/ports/' },
    },
    {
      name: 'adapters-stand-above-what-they-adapt',
      severity: 'error',
      comment:
        'adapters/ implement ports over the types of the folders below them (mcp/, otel/, permissions/ …): those never import an adapter. The composition roots at the top of src/ (kernel.ts, the entries such as mcp.ts) wire adapters in.',
      from: { path: '^src/(events|util|ports|machines|projections|tools|permissions|intake|mcp|otel|ai-sdk)/' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'replay-stands-above-the-kernel',
      severity: 'error',
      comment:
        'replay/ drives a kernel over a recorded log: only the entry, the CLI and the testing kit import it. Recovery (log → events, which resume needs) is in events/.',
      from: { path: '^src/', pathNot: '^src/(replay|cli|testing)/|^src/index\\.ts$' },
      to: { path: '^src/replay/' },
    },
    {
      name: 'ports-stand-below-tools',
      severity: 'error',
      comment:
        'ports/ declare capabilities over the log format only: not even a type from tools/ or above (a source of tools is part of the tool contract, in tools/).',
      from: { path: '^src/ports/' },
      to: { path: '^src/', pathNot: '^src/(ports|events)/' },
    },
    {
      name: 'shell-analysis-is-pure',
      severity: 'error',
      comment: 'The shell analysis imports nothing of the kernel: tools, permissions and adapters share it.',
      from: { path: '^src/permissions/shell/' },
      to: { path: '^src/', pathNot: '^src/(permissions/shell|util)/' },
    },
    {
      name: 'util-is-a-leaf',
      severity: 'error',
      comment: 'util/ holds small pure helpers that import nothing of the kernel.',
      from: { path: '^src/util/' },
      to: { path: '^src/', pathNot: '^src/util/' },
    },
    {
      name: 'no-src-from-outside',
      severity: 'error',
      comment: 'The library never imports tests, scripts or benchmarks.',
      from: { path: '^src/' },
      to: { path: '^(test|scripts|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
}
