/**
 * A Node built-in module, loaded when first used rather than when toolkernel is imported
 * (`process.getBuiltinModule`, Node ≥ 20.16): `import('toolkernel')` does not pay for the HTTP
 * stack, child processes (which load `node:net` themselves), worker threads or `node:module` that
 * a kernel may never use (docs/decisions/performance.md,
 * 168). Synchronous, so a caller stays as it was; only types are imported statically.
 */
import type * as childProcess from 'node:child_process'
import type * as http from 'node:http'
import type * as nodeModule from 'node:module'
import type * as net from 'node:net'
import type * as workerThreads from 'node:worker_threads'

interface Deferred {
  'node:child_process': typeof childProcess
  'node:http': typeof http
  'node:net': typeof net
  'node:worker_threads': typeof workerThreads
  'node:module': typeof nodeModule
}

export function builtin<ID extends keyof Deferred>(id: ID): Deferred[ID] {
  return process.getBuiltinModule(id) as unknown as Deferred[ID]
}
