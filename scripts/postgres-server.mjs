// A throwaway PostgreSQL server for the demo and the benches: initdb in a temp directory, trust
// authentication, a free port on loopback, stopped and removed by `stop()`. As root, initdb and the
// server run as the `postgres` user (initdb refuses root). PG_URL, when set, is used instead. The
// tests have their own (test/postgres-server.ts), which also skips when the programs are missing.
import { spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import os from 'node:os'
import { join } from 'node:path'

/** Where initdb and pg_ctl are: on PATH, else Debian's PostgreSQL 15; undefined when neither. */
export function postgresPrograms() {
  const onPath = spawnSync('bash', ['-c', 'command -v initdb'], { encoding: 'utf8' })
  if (onPath.status === 0) return join(onPath.stdout.trim(), '..')
  return existsSync('/usr/lib/postgresql/15/bin/initdb') ? '/usr/lib/postgresql/15/bin' : undefined
}

/**
 * Starts a server; undefined when its programs are not installed. `settings` are `-c` settings
 * (e.g. `{ fsync: 'off', max_connections: '300' }`); `name` goes into the temp directory's name.
 *
 * @returns {Promise<{ url: string, stop: () => void } | undefined>}
 */
export async function startPostgres({ name = 'pg', settings = {} } = {}) {
  if (process.env.PG_URL) return { url: process.env.PG_URL, stop: () => {} }
  const bin = postgresPrograms()
  if (bin === undefined) return undefined
  const root = process.getuid?.() === 0
  const dir = mkdtempSync(join(os.tmpdir(), `toolkernel-${name}-`))
  if (root)
    chownSync(
      dir,
      Number(spawnSync('id', ['-u', 'postgres']).stdout),
      Number(spawnSync('id', ['-g', 'postgres']).stdout),
    )
  const run = (program, ...args) => {
    const command = join(bin, program)
    const r = root ? spawnSync('runuser', ['-u', 'postgres', '--', command, ...args]) : spawnSync(command, args)
    if (r.status !== 0) throw new Error(`${program} failed: ${r.stderr}`)
  }
  const port = await new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const free = server.address().port
      server.close(() => resolve(free))
    })
  })
  const data = join(dir, 'data')
  run('initdb', '-D', data, '-U', 'postgres', '--auth=trust', '-N')
  const more = Object.entries(settings).map(([key, value]) => ` -c ${key}=${value}`)
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${more.join('')}`
  run('pg_ctl', '-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start')
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      run('pg_ctl', '-D', data, '-m', 'fast', '-w', 'stop')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
