// Setup of the mutation suite only (vitest.mutation.config.ts). StrykerJS switches mutants inside
// one long-lived test process, so a module-level cache filled by an earlier test would answer for
// code a later mutant changed, and that mutant would "survive" without ever running: the shell
// analyses, parsed rule specifiers and compiled path patterns are forgotten before each test.
import { beforeEach } from 'vitest'
import { clearCompiledPatterns } from '../src/permissions/rules.js'
import { clearShellCaches } from '../src/permissions/shell/index.js'

beforeEach(() => {
  clearShellCaches()
  clearCompiledPatterns()
})
