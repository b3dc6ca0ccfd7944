/**
 * Engine internals that the benchmarks measure on their own (bench/). Built to dist/internal.js
 * beside the public entries, so they share the entries' chunks, but not exported by the package:
 * nothing here is public API.
 *
 * @internal
 * @packageDocumentation
 */
export { toolCallMachine } from './machines/tool-call.machine.js'
export { Bm25Index } from './tools/pool/bm25.js'
export { searchDocument, searchTools } from './tools/pool/search.js'
export { createFileSearch } from './adapters/file-search.js'
export { StampingLog } from './adapters/memory-log.store.js'
export { loadLog } from './cli/load-log.js'
export { toJsonLine } from './events/jsonl.js'
