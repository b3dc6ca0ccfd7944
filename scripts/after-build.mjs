// After the bundle: make the CLI executable, and ship the bash grammar beside each output file
// that loads it (tree-sitter-bash is only a build-time dependency: its .wasm is all the library
// needs; the chunk that holds src/adapters/bash-grammar.ts looks for it beside itself).
import { chmodSync, copyFileSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const dist = fileURLToPath(new URL('../dist/', import.meta.url))
chmodSync(join(dist, 'cli/main.js'), 0o755)
const wasm = createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm')
const loaders = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter(
  (file) => file.endsWith('.js') && readFileSync(join(dist, file), 'utf8').includes('tree-sitter-bash.wasm'),
)
if (loaders.length === 0) throw new Error('no output file loads tree-sitter-bash.wasm: where did bash-grammar go?')
for (const file of loaders) copyFileSync(wasm, join(dist, dirname(file), 'tree-sitter-bash.wasm'))
