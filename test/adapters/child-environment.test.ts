/** The environment of child processes: an allowlist of the host's, plus what the runner and the app set. */
import { describe, expect, it } from 'vitest'
import { buildChildEnvironment, DEFAULT_ENVIRONMENT_ALLOWLIST } from '../../src/adapters/child-environment.js'

const host = {
  PATH: '/usr/bin',
  HOME: '/home/me',
  TERM: 'xterm-256color',
  LANG: 'C.UTF-8',
  ANTHROPIC_API_KEY: 'sk-secret',
  AWS_SECRET_ACCESS_KEY: 'also-secret',
  NPM_CONFIG_REGISTRY: 'https://registry.example',
  NPM_CONFIG_CACHE: '/tmp/npm',
  CI: 'true',
}

describe('buildChildEnvironment', () => {
  it('takes only allowlisted variables from the host', () => {
    expect(buildChildEnvironment({ from: host })).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/me',
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
    })
    expect(DEFAULT_ENVIRONMENT_ALLOWLIST).toEqual(expect.arrayContaining(['PATH', 'HOME', 'TMPDIR', 'TZ', 'LC_ALL']))
  })

  it('adds the names the app allows (a trailing * is a prefix), then the runner defaults, then what the app sets', () => {
    const env = buildChildEnvironment(
      { from: host, allow: ['CI', 'NPM_CONFIG_*'], set: { GIT_AUTHOR_NAME: 'agent', PAGER: 'less' } },
      { TERM: 'dumb', PAGER: 'cat' },
    )
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/me',
      TERM: 'dumb',
      LANG: 'C.UTF-8',
      CI: 'true',
      NPM_CONFIG_REGISTRY: 'https://registry.example',
      NPM_CONFIG_CACHE: '/tmp/npm',
      GIT_AUTHOR_NAME: 'agent',
      PAGER: 'less',
    })
    expect(env).not.toHaveProperty('ANTHROPIC_API_KEY')
  })

  it('reads process.env when no source is given', () => {
    process.env.TK_SECRET_TEST = 'x'
    try {
      const env = buildChildEnvironment()
      expect(env).not.toHaveProperty('TK_SECRET_TEST')
      expect(env.PATH).toBe(process.env.PATH)
      expect(buildChildEnvironment({ allow: ['TK_SECRET_TEST'] }).TK_SECRET_TEST).toBe('x')
    } finally {
      delete process.env.TK_SECRET_TEST
    }
  })
})
