/**
 * examples/testing (the "property-test your tool layer in 20 lines" page) as a user runs it:
 * toolkernel packed with `npm pack`, unpacked into a copy of the example's node_modules (what
 * `npm install` of the tarball puts there), the rest linked from the repo — no network — then
 * the example's own type-check and its own vitest run. Uses dist as built (`npm test` builds first).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const EXAMPLE = join(ROOT, 'examples', 'testing')
const built = existsSync(join(ROOT, 'dist', 'testing', 'index.js'))
if (!built) console.warn('examples/testing: skipped — dist/ is not built: run `npm run build` first')

const dirs: string[] = []
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

/** A copy of the example with toolkernel installed from its packed tarball. */
function installExample(): string {
  const work = mkdtempSync(join(tmpdir(), 'toolkernel-example-'))
  dirs.push(work)
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, npm_config_offline: 'true' },
  })
  const tarball = join(work, (JSON.parse(out) as Array<{ filename: string }>)[0]?.filename ?? '')
  const project = join(work, 'project')
  cpSync(EXAMPLE, project, { recursive: true, filter: (src) => !src.includes('node_modules') })
  const modules = join(project, 'node_modules')
  mkdirSync(modules)
  execFileSync('tar', ['-xzf', tarball, '-C', work])
  renameSync(join(work, 'package'), join(modules, 'toolkernel'))
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (entry === 'toolkernel' || entry.startsWith('.')) continue
    symlinkSync(join(ROOT, 'node_modules', entry), join(modules, entry))
  }
  return project
}

describe.skipIf(!built)('examples/testing against the packed library', () => {
  it(
    'type-checks under strict; passes for the good configuration and catches each planted mistake',
    { timeout: 400_000 },
    () => {
      const project = installExample()
      const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], {
        encoding: 'utf8',
      })
      expect(tsc.stdout + tsc.stderr).toBe('')
      const vitest = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], {
        cwd: project,
        encoding: 'utf8',
        timeout: 300_000,
      })
      expect(vitest.status, vitest.stdout + vitest.stderr).toBe(0)
      // The good configuration passes; each of the four planted mistakes is caught (its test passes).
      // vitest colours its summary
      expect(vitest.stdout.replace(/\u001b\[[0-9;]*m/g, '')).toMatch(/Tests +5 passed/)
    },
  )
})
