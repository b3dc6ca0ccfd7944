/**
 * Which optional programs this machine has. Tests that need one skip with a message naming it
 * when it is absent (a user's machine); CI installs them all (`.ci/run`), so there they run.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname } from 'node:path'

function runs(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 })
  return result.error === undefined && result.status === 0
}

function note(name: string, present: boolean, why: string): boolean {
  if (!present) console.warn(`[toolkernel tests] ${name} is not installed: skipping ${why}. CI installs it (.ci/run).`)
  return present
}

export const ripgrepInstalled = note(
  'ripgrep (rg)',
  runs('rg', ['--version']),
  'the tests that compare ripgrep with the built-in search',
)

/** The first of `names` found on PATH, as an absolute path. */
function onPath(names: string[]): string | undefined {
  for (const name of names) {
    const found = spawnSync('bash', ['-c', `command -v -- "$0"`, name], { encoding: 'utf8' })
    const path = found.stdout.trim()
    if (found.status === 0 && path.startsWith('/')) return path
  }
  return undefined
}

const chromiumPath = onPath(['chromium', 'chromium-browser', 'google-chrome'])
/** Headless Chromium for the timeline's browser tests, or undefined. */
export const chromium = note('Chromium', chromiumPath !== undefined, 'the browser tests of the HTML timeline')
  ? chromiumPath
  : undefined

/** The directory of PostgreSQL's server programs (initdb, pg_ctl, postgres), or undefined. */
function postgresBin(): string | undefined {
  const initdb = onPath(['initdb'])
  if (initdb !== undefined && onPath(['pg_ctl']) !== undefined) return dirname(initdb)
  // Debian puts them off PATH; CI installs them there (.ci/run). A user's PATH decides elsewhere.
  const debian = '/usr/lib/postgresql/15/bin'
  if (process.env.CI !== undefined && existsSync(`${debian}/initdb`)) return debian
  return undefined
}

const postgresDir = postgresBin()
/** PostgreSQL's server programs for the store tests (each file starts its own server), or undefined. */
export const postgres = note(
  'PostgreSQL (initdb, pg_ctl)',
  postgresDir !== undefined,
  'the PostgreSQL event store tests',
)
  ? postgresDir
  : undefined

/** Whether bubblewrap runs here with the namespaces the sandbox uses (a PID and a network namespace). */
export const bubblewrap = note(
  'bubblewrap (bwrap)',
  runs('bwrap', ['--ro-bind', '/', '/', '--unshare-pid', '--unshare-net', '--die-with-parent', 'true']),
  'the tests that run commands in the OS sandbox (the fail-closed tests still run)',
)
