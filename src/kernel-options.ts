/**
 * The names of every option `createKernel` and a kernel's methods take, nested ones included, so
 * that an option the kernel does not know is refused with the ones it takes instead of being
 * ignored (decision 118). test/public-options.test.ts checks at compile time that each list holds
 * exactly the keys of its interface: a new option is added here or the type check fails.
 */
import { API_FORMATS } from './tools/to-api-format.js'
import { checkKnownOptions, checkOptionsObject } from './util/known-options.js'

export const KERNEL_OPTIONS = [
  'tools',
  'cwd',
  'maxConcurrency',
  'canUseTool',
  'permissions',
  'hooks',
  'progressLogChars',
  'earlyStart',
  'results',
  'messageBudgetChars',
  'log',
  'store',
  'session',
  'lease',
  'environment',
  'ports',
  'toolSources',
  'toolFormat',
  'deferral',
  'approvals',
  'toolTimeoutMs',
  'timeoutGraceMs',
  'sandbox',
  'snapshotEvery',
] as const

/** The nested option objects of `createKernel`, by option. */
export const KERNEL_NESTED_OPTIONS = {
  permissions: ['mode', 'allow', 'ask', 'deny', 'protect', 'allowSandboxed'],
  lease: ['owner', 'ttlMs', 'waitMs'],
  environment: ['allow', 'set', 'from'],
  ports: ['clock', 'ids', 'fs', 'processes', 'search', 'web', 'hookRunner', 'sandbox'],
  deferral: ['mode', 'contextTokens', 'share', 'maxTools'],
} as const

export const API_TOOLS_OPTIONS = ['format'] as const
export const TURN_OPTIONS = ['signal'] as const
export const STREAM_TURN_OPTIONS = ['signal', 'earlyStart'] as const

/** Refuses an unknown `createKernel` option, top-level or nested. */
export function checkKernelOptions(options: unknown): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new TypeError('createKernel: takes one options object { tools, … }')
  checkKnownOptions('createKernel', options, KERNEL_OPTIONS)
  for (const [key, known] of Object.entries(KERNEL_NESTED_OPTIONS)) {
    const value = (options as Record<string, unknown>)[key]
    // A value that is not an object is left to the option's own check (or its use).
    checkKnownOptions(`createKernel: ${key}`, value, known)
  }
}

/** Refuses `apiTools('openai')` and `apiTools({ provider: 'openai' })`: the format is `{ format }`. */
export function checkApiToolsOptions(options: unknown): void {
  if (typeof options === 'string')
    throw new TypeError(
      `kernel.apiTools: takes an options object { format } (${API_FORMATS.join(', ')}), got the string ${JSON.stringify(options)}`,
    )
  checkOptionsObject('kernel.apiTools', options, API_TOOLS_OPTIONS)
}

export function checkTurnOptions(
  where: 'kernel.runTurn' | 'kernel.startTurn' | 'kernel.callTool',
  options: unknown,
): void {
  checkOptionsObject(where, options, where === 'kernel.startTurn' ? STREAM_TURN_OPTIONS : TURN_OPTIONS)
}
