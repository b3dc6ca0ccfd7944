// require('toolkernel') from CommonJS: the module (Node that can require ESM), or an error saying
// to use import() — never ERR_PACKAGE_PATH_NOT_EXPORTED.
try {
  const toolkernel = require('toolkernel')
  process.stdout.write(`loaded:${typeof toolkernel.createKernel}`)
} catch (error) {
  process.stdout.write(`error:${error.code ?? ''}:${error.message}`)
}
