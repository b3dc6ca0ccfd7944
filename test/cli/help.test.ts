/** Every command of the real bin answers --help and -h (npm test builds dist first). */
import { describe, expect, it } from 'vitest'
import { toolkernel } from './run-cli.js'

describe('--help', () => {
  const commands = ['demo', 'replay', 'inspect', 'stats', 'timeline', 'export']

  it.each(commands)('toolkernel %s --help and -h print its usage and exit 0', async (command) => {
    for (const flag of ['--help', '-h']) {
      const { code, stdout, stderr } = await toolkernel([command, flag])
      expect(stdout).toMatch(new RegExp(`^usage: toolkernel ${command}`))
      expect(stdout).not.toContain('\\x0a')
      expect(stderr).toBe('')
      expect(code).toBe(0)
    }
    expect((await toolkernel(['help', command])).stdout).toBe((await toolkernel([command, '--help'])).stdout)
  })

  it('replay --help documents --tools and what a tools module exports', async () => {
    const { stdout } = await toolkernel(['replay', '--help'])
    expect(stdout).toContain('--tools MODULE')
    expect(stdout).toContain('export const tools = [')
    expect(stdout).toMatch(/not checked/)
  })

  it('toolkernel --help lists every command', async () => {
    const { code, stdout } = await toolkernel(['--help'])
    for (const command of commands) expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'))
    expect(code).toBe(0)
  })

  it('help for a command there is not, or an unknown command, is a usage error', async () => {
    const nope = await toolkernel(['help', 'nope'])
    expect(nope.stderr).toMatch(/^toolkernel help: no command "nope"/)
    expect(nope.code).toBe(2)
    const unknown = await toolkernel(['nope', '--help'])
    expect(unknown.stderr).toMatch(/^toolkernel: unknown command "nope"/)
    expect(unknown.code).toBe(2)
  })
})
