/**
 * A throwaway PostgreSQL server for one test file: a temp directory, 127.0.0.1, a free port,
 * trust authentication, stopped and removed at the end. As root, initdb and the server run as the
 * `postgres` user (initdb refuses root).
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

export interface TestServer {
  readonly port: number
  readonly dir: string
  /** A connection string to `database` (default 'postgres'). */
  url(database?: string): string
  /** Creates a database and returns its connection string. */
  createDatabase(name: string): Promise<string>
  /** `pg_ctl restart -m immediate`: every backend is killed, as in a crash. */
  restartImmediate(): void
  stop(): void
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject()))
    })
  })
}

const asRoot = process.getuid?.() === 0

function run(bin: string, program: string, args: string[]): void {
  const command = join(bin, program)
  const result = asRoot
    ? spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8', timeout: 60_000 })
    : spawnSync(command, args, { encoding: 'utf8', timeout: 60_000 })
  if (result.status !== 0)
    throw new Error(`${program} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}`)
}

/** Starts a server with the programs in `bin` (see `postgres` in test/programs.ts). */
export async function startTestServer(bin: string): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'toolkernel-pg-'))
  if (asRoot) {
    const user = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' })
    const group = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' })
    chownSync(dir, Number(user.stdout.trim()), Number(group.stdout.trim()))
  }
  chmodSync(dir, 0o700)
  const data = join(dir, 'data')
  run(bin, 'initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '-N'])
  const port = await freePort()
  const serverOptions = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses='127.0.0.1'",
    '-c fsync=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ')
  const start = (): void => run(bin, 'pg_ctl', ['-D', data, '-o', serverOptions, '-l', join(dir, 'log'), '-w', 'start'])
  start()
  const url = (database = 'postgres'): string => `postgres://postgres@127.0.0.1:${port}/${database}`
  let running = true
  return {
    port,
    dir,
    url,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url() })
      await client.connect()
      try {
        await client.query(`CREATE DATABASE "${name}"`)
      } finally {
        await client.end()
      }
      return url(name)
    },
    restartImmediate() {
      run(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      start()
    },
    stop() {
      if (!running) return
      running = false
      try {
        run(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}
