/**
 * What `require('toolkernel')` loads (the `require` condition of the package's `exports`).
 * toolkernel is ESM. Node 20.19+ and 22.12+ can `require()` an ES module, so here the shim hands
 * the module over; where Node cannot (an older Node, or `--no-experimental-require-module`), it
 * throws an error that says what to do instead of Node's `ERR_PACKAGE_PATH_NOT_EXPORTED`.
 */

/** The error a CommonJS app gets where Node cannot require an ES module. */
const ESM_ONLY =
  "toolkernel is ESM-only: use import … or await import('toolkernel') (Node 20.19+ can require ESM; older Node needs --experimental-require-module)"

if (process.features.require_module !== true) throw new Error(ESM_ONLY)
module.exports = require('./index.js')
