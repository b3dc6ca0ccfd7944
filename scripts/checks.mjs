/**
 * `npm test`'s checks before vitest, side by side: the type check, the lint and the build are
 * independent (none reads what another writes; the tests read the build, and start after all three),
 * and each is mostly one busy core, so on two cores together they take about half as long as one
 * after the other (docs/quality.md §Suite time). Each one's output is printed whole when it ends;
 * the exit code is the first failure's.
 *
 * node scripts/checks.mjs typecheck lint build
 */
import { spawn } from 'node:child_process'

const scripts = process.argv.slice(2)
if (scripts.length === 0) throw new Error('usage: node scripts/checks.mjs <npm script>…')

const run = (script) =>
  new Promise((resolve) => {
    const started = performance.now()
    const child = spawn('npm', ['run', script, '--silent'], { stdio: ['ignore', 'pipe', 'pipe'] })
    const output = []
    child.stdout.on('data', (chunk) => output.push(chunk))
    child.stderr.on('data', (chunk) => output.push(chunk))
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)))
    child.on('close', (code, signal) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1)
      const failed = code !== 0
      process.stdout.write(`\n> ${script}: ${failed ? `failed (${signal ?? `exit ${code}`})` : 'ok'}, ${seconds} s\n`)
      process.stdout.write(Buffer.concat(output))
      resolve(failed ? (code ?? 1) : 0)
    })
  })

const codes = await Promise.all(scripts.map(run))
process.exitCode = codes.find((code) => code !== 0) ?? 0
