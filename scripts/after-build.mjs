// After tsc: make the CLI executable, and ship the bash grammar beside the adapter that loads it
// (tree-sitter-bash is only a build-time dependency: its .wasm is all the library needs).
import { chmodSync, copyFileSync } from 'node:fs'
import { createRequire } from 'node:module'

chmodSync(new URL('../dist/cli/main.js', import.meta.url), 0o755)
const wasm = createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm')
copyFileSync(wasm, new URL('../dist/adapters/tree-sitter-bash.wasm', import.meta.url))
