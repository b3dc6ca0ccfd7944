/**
 * From the words of a simple command to the commands that run: hazards refused, wrappers
 * peeled, scripts given as strings analysed in turn.
 */
import { assignmentHazard, COMMAND_VALUED, commandHazard, namesAssignedBy, namesEvaluatedBy } from './hazards.js'
import { deeper, matchingName, pushCommand, wordsLine } from './scope.js'
import type { Scope } from './scope.js'
import type { Redirect } from './shell.types.js'
import { fail } from './unknown.js'
import { isDynamic } from './words.js'
import type { Word, WordAssignment } from './words.js'
import type { Peeled, Script } from './peeled.js'
import { zshHazard } from './shell-wrappers.js'
import { peelWrapper } from './wrappers.js'

/** The wrappers peeled so far on the way to a command. */
interface Chain {
  readonly via: readonly string[]
  readonly wrapperLines: readonly string[]
  readonly openArgs: boolean
}

const NO_CHAIN: Chain = { via: [], wrapperLines: [], openArgs: false }

/**
 * Reserved words are never command names when unquoted. The grammar reads them as names after
 * `!` or `time` (`! while false; do rm x; done` comes back as commands `while`, `do rm x`,
 * `done`): such a tree misstates what runs, so it is unknown.
 */
const RESERVED = new Set([
  '!',
  'case',
  'coproc',
  'do',
  'done',
  'elif',
  'else',
  'esac',
  'fi',
  'for',
  'function',
  'if',
  'in',
  'select',
  'then',
  'until',
  'while',
  '{',
  '}',
  '[[',
  ']]',
])

/** A simple command as written: its words (command word first), assignments and redirections. */
export interface Written {
  readonly words: readonly Word[]
  readonly assignments: readonly WordAssignment[]
  readonly redirects: readonly Redirect[]
  readonly text: string
}

/**
 * Emits a simple command, and every command it runs through wrappers. `fresh` are the
 * assignments not checked yet (a wrapper's own, such as `env X=1`).
 */
export function emitCommand(
  scope: Scope,
  written: Written,
  chain: Chain = NO_CHAIN,
  fresh = written.assignments,
): void {
  checkAssignments(scope, fresh)
  const [first] = written.words
  if (first === undefined) return push(scope, written, chain)
  if (isDynamic(first)) fail(`the command name ${first.raw} is computed at run time`)
  if (RESERVED.has(first.raw))
    fail(`the reserved word ${first.raw} stands where a command name is expected: not analysed`)
  if (first.value === '') fail('the command name is empty')
  const name = matchingName(first.value)
  const hazard = commandHazard(name, written.words)
  if (hazard !== undefined) fail(hazard)
  for (const assigned of namesAssignedBy(name, written.words)) scope.shared.assigned.add(assigned)
  for (const evaluated of namesEvaluatedBy(name, written.words)) scope.shared.evaluated.add(evaluated)
  follow(scope, written, chain, peelWrapper(name, written.words))
}

function follow(scope: Scope, written: Written, chain: Chain, peeled: Peeled): void {
  const line = wordsLine(written.words)
  switch (peeled.kind) {
    case 'self':
      return push(scope, written, chain)
    case 'unknown':
      return fail(peeled.reason)
    case 'wrapped': {
      const inner = { ...written, words: peeled.words, assignments: [...written.assignments, ...peeled.assignments] }
      const next = {
        via: [...chain.via, peeled.via],
        wrapperLines: [...chain.wrapperLines, line],
        openArgs: chain.openArgs || peeled.openArgs,
      }
      return emitCommand(scope, inner, next, peeled.assignments)
    }
    case 'script': {
      if (peeled.dialect === 'zsh') {
        const hazard = zshHazard(peeled.source)
        if (hazard !== undefined) fail(hazard)
      }
      return runScript(scope, written, chain, { via: peeled.via, source: peeled.source })
    }
    case 'also': {
      push(scope, written, chain)
      const next = { ...chain, via: [...chain.via, peeled.via], wrapperLines: [...chain.wrapperLines, line] }
      for (const words of peeled.inner) emitCommand(scope, { ...written, words }, next, [])
      for (const script of peeled.scripts ?? []) runScript(scope, written, chain, script)
    }
  }
}

/** Analyses a script the command runs through a shell, under the command's wrappers. */
function runScript(scope: Scope, written: Written, chain: Chain, script: Script): void {
  const child = deeper(scope, {
    via: [...chain.via, script.via],
    wrapperLines: [...chain.wrapperLines, wordsLine(written.words)],
    assignments: written.assignments,
    redirects: written.redirects,
  })
  scope.shared.analyzeSource(script.source, child)
}

function push(scope: Scope, written: Written, chain: Chain): void {
  pushCommand(scope, { ...written, ...chain })
}

/**
 * Refuses assignments that load code, records the names for the arithmetic check, and analyses
 * the value of a variable that programs run as a command (`GIT_EDITOR='rm x' git commit`).
 */
export function checkAssignments(scope: Scope, assignments: readonly WordAssignment[]): void {
  for (const assignment of assignments) {
    const hazard = assignmentHazard(assignment)
    if (hazard !== undefined) fail(hazard)
    const base = assignment.name.replace(/\[.*$/s, '')
    scope.shared.assigned.add(base)
    if (!COMMAND_VALUED.has(base) || assignment.value === '') continue
    if (assignment.dynamic) fail(`${base} holds a command and its value is computed at run time`)
    scope.shared.analyzeSource(
      assignment.value,
      deeper(scope, { via: [`${base}=`], wrapperLines: [`${base}=${assignment.value}`] }),
    )
  }
}
