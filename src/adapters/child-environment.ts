/**
 * The environment of the processes the kernel starts (Bash commands, command hooks): built from an
 * allowlist, never the host's whole `process.env`. A model-driven shell that inherits the host's
 * environment hands it every API key and token the app holds; a command that needs one gets it
 * because the app passes it (`allow` or `set`), not by accident.
 */
import { checkOptionsObject, optionNames } from '../util/known-options.js'

/** The variables a child process gets from the host by default: what shells and tools need to work. */
export const DEFAULT_ENVIRONMENT_ALLOWLIST: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'LC_MESSAGES',
  'TZ',
  'TERM',
  'TMPDIR',
]

/**
 * What the app decides about its child processes' environment.
 *
 * @example
 * // Pass CI and every NPM_CONFIG_* variable through, and set one of your own.
 * createProcessRunner({ env: { allow: ['CI', 'NPM_CONFIG_*'], set: { GIT_AUTHOR_NAME: 'agent' } } })
 */
export interface ChildEnvironmentOptions {
  /**
   * More variable names to take from the host, added to the default allowlist. A name ending in
   * `*` takes every variable with that prefix.
   */
  readonly allow?: readonly string[]
  /** Variables set to these values, whatever the host has (they win over everything else). */
  readonly set?: Readonly<Record<string, string>>
  /** Where the allowed variables are read from (default `process.env`). */
  readonly from?: NodeJS.ProcessEnv
}

export const CHILD_ENVIRONMENT_OPTIONS = optionNames<ChildEnvironmentOptions>()('allow', 'set', 'from')

/**
 * The environment for a child process: the allowlisted variables the host has, then `defaults`
 * (what the runner itself needs, e.g. `TERM=dumb` for Bash), then the app's `set`.
 *
 * @example
 * buildChildEnvironment({ allow: ['CI'] }) // { PATH: '/usr/bin:…', HOME: '/home/me', CI: 'true', … }
 */
export function buildChildEnvironment(
  options: ChildEnvironmentOptions = {},
  defaults: Readonly<Record<string, string>> = {},
): Record<string, string> {
  checkOptionsObject('buildChildEnvironment', options, CHILD_ENVIRONMENT_OPTIONS)
  const from = options.from ?? process.env
  const names = [...DEFAULT_ENVIRONMENT_ALLOWLIST, ...(options.allow ?? [])]
  const exact = names.filter((name) => !name.endsWith('*'))
  const prefixes = names.filter((name) => name.endsWith('*')).map((name) => name.slice(0, -1))
  const env: Record<string, string> = {}
  // By name: each read of process.env is a getenv, and reading only the allowed ones (a dozen)
  // instead of every variable the host has keeps this off a Bash call's cost.
  for (const name of exact) {
    const value = from[name]
    if (value !== undefined) env[name] = value
  }
  if (prefixes.length > 0)
    for (const name of Object.keys(from)) {
      if (!prefixes.some((prefix) => name.startsWith(prefix))) continue
      const value = from[name]
      if (value !== undefined) env[name] = value
    }
  return { ...env, ...defaults, ...options.set }
}
