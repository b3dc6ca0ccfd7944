// The JavaScript of the build: each entry of the package (and the CLI) bundled by rolldown from
// src/, the code they share split into dist/chunks/, dependencies left to node_modules except
// rxjs, whose CommonJS build loads every operator (decision 81): its ES2015 build is bundled and
// tree-shaken. tsc emits only the declarations. One file per entry instead of ~140 modules is most
// of what import('toolkernel') saves.
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { rolldown } from 'rolldown'

const root = new URL('..', import.meta.url)
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'))
const inlined = new Set(['rxjs'])
const external = [
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}),
  ...Object.keys(pkg.devDependencies ?? {}),
].filter((name) => !inlined.has(name))
const isExternal = (id) => id.startsWith('node:') || external.some((name) => id === name || id.startsWith(`${name}/`))

const entries = {
  index: 'src/index.ts',
  internal: 'src/internal.ts',
  'testing/index': 'src/testing/index.ts',
  'otel/index': 'src/otel/index.ts',
  mcp: 'src/mcp.ts',
  'postgres/index': 'src/postgres/index.ts',
  'ai-sdk/index': 'src/ai-sdk/index.ts',
  'loop/index': 'src/loop/index.ts',
  'cli/main': 'src/cli/main.ts',
}
const cwd = new URL('.', root).pathname

/** rxjs's ES2015 entry, found from its package (a real path, wherever node_modules is linked from). */
function rxjsEsm() {
  const pkgJson = createRequire(new URL('package.json', root)).resolve('rxjs/package.json')
  const entry = join(dirname(realpathSync(pkgJson)), 'dist/esm/index.js')
  if (!existsSync(entry)) throw new Error(`rxjs's ES2015 build is not at ${entry}: is rxjs 7 installed?`)
  return entry
}
const esm = await rolldown({
  cwd,
  input: entries,
  platform: 'node',
  external: isExternal,
  // rxjs's ES2015 build, not its `node` export (CommonJS, which keeps every operator): tree-shaken.
  resolve: { alias: { rxjs: rxjsEsm() } },
  tsconfig: 'tsconfig.build.json',
})
await esm.write({
  dir: 'dist',
  format: 'esm',
  sourcemap: true,
  entryFileNames: '[name].js',
  chunkFileNames: 'chunks/[name]-[hash].js',
})
await esm.close()

// require('toolkernel'): a CommonJS shim that hands over the ES module (src/require.cts).
const cjs = await rolldown({ cwd, input: 'src/require.cts', platform: 'node', external: () => true })
await cjs.write({ file: 'dist/require.cjs', format: 'cjs' })
await cjs.close()
