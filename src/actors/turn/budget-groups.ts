/**
 * Results that arrive together are decided together (docs/decisions/results.md, 154): a result
 * whose tool returns while siblings of its turn are still running waits (`budget.held`) until
 * none runs; then the message budget is claimed for all that waited at once, the largest
 * persisted first (`budget.decided`), and each call goes on with its `tool.completed`, in
 * tool_use order. A result that arrives while no sibling runs is claimed at once and waits for
 * nothing, as before (decision 16); so is one the budget cannot change (short output, output over
 * its tool's own limit, a tool whose limit is Infinity): its room is taken at once, which is what
 * deciding it with the group would do, and its output is in the log if the process dies.
 *
 * A call runs from its `tool.started` until its tool answers, or its actor ends (an interrupted
 * 'block' tool that never settles ends with its call), or it waits for a person below it (a
 * child turn's parked call): the turn run tells which. Every step of it is an event in the log
 * or follows one at a fixed point, so a re-execution forms the same groups.
 */
import type { EventLog } from '../../ports/index.js'
import {
  claimBudget,
  claimTogether,
  KEEP_WHOLE_CHARS,
  type Fresh,
  type ResultGroups,
  type TurnBudget,
} from './budget.js'

interface Held extends Fresh {
  readonly settle: (persist: boolean) => void
}

export class BudgetGroups implements ResultGroups {
  readonly #budget: TurnBudget
  readonly #log: EventLog
  readonly #turnId: string
  /** Calls whose tool is running. */
  readonly #running = new Set<string>()
  /** Running calls that wait for a person in a child turn: nothing waits for them. */
  readonly #parked = new Set<string>()
  #held: Held[] = []
  /** What each decided group's calls were told, until they have heard it. */
  readonly #decided = new Map<string, boolean>()

  constructor(budget: TurnBudget, log: EventLog, turnId: string) {
    this.#budget = budget
    this.#log = log
    this.#turnId = turnId
  }

  /** The call's tool starts (its `tool.started` is being logged). */
  started(toolUseId: string): void {
    this.#running.add(toolUseId)
  }

  /**
   * The call's tool returned this much output: whether it is persisted — at once when no sibling
   * runs, or once the group it waits in is decided.
   */
  arrived(fresh: Fresh): boolean | Promise<boolean> {
    this.#running.delete(fresh.toolUseId)
    // Output the message budget never persists, or always does, claims its room at once.
    if ((this.#running.size === 0 && this.#held.length === 0) || !undecided(fresh)) {
      // The group it ends is decided first, as the log has it: budget.decided before this tool.completed.
      this.#decide()
      return claimBudget(this.#budget, fresh.chars, fresh.maxResultSizeChars)
    }
    this.#log.append({ type: 'budget.held', turnId: this.#turnId, toolUseId: fresh.toolUseId, chars: fresh.chars })
    const persisted = new Promise<boolean>((settle) => this.#held.push({ ...fresh, settle }))
    this.#decide()
    return persisted
  }

  /** The call's tool answered with no output to claim for (it failed). */
  answered(toolUseId: string): void {
    this.#running.delete(toolUseId)
    this.#decide()
  }

  /**
   * A held call is interrupted: whether its output is persisted, now — its group's answer if the
   * group was decided, else claimed alone at once (it leaves the group).
   */
  claimNow(toolUseId: string): boolean {
    const decided = this.#decided.get(toolUseId)
    if (decided !== undefined) return decided
    const held = this.#held.find((entry) => entry.toolUseId === toolUseId)
    if (held === undefined) return false
    this.#held = this.#held.filter((entry) => entry !== held)
    const persisted = claimBudget(this.#budget, held.chars, held.maxResultSizeChars)
    this.#decide()
    return persisted
  }

  /** The call's actor ended: it runs no more. */
  ended(toolUseId: string): void {
    this.#running.delete(toolUseId)
    this.#parked.delete(toolUseId)
    this.#decided.delete(toolUseId)
    this.#held = this.#held.filter((held) => held.toolUseId !== toolUseId)
    this.#decide()
  }

  /** The call waits for a person below it (a child turn's parked call), or no longer. */
  parked(toolUseId: string, parked: boolean): void {
    if (parked && this.#running.delete(toolUseId)) {
      this.#parked.add(toolUseId)
      this.#decide()
    } else if (!parked && this.#parked.delete(toolUseId)) this.#running.add(toolUseId)
  }

  /** When nothing runs, the results that waited are decided together. */
  #decide(): void {
    if (this.#running.size > 0 || this.#held.length === 0) return
    const group = this.#held.sort((a, b) => a.index - b.index)
    this.#held = []
    const persisted = claimTogether(this.#budget, group)
    this.#log.append({
      type: 'budget.decided',
      turnId: this.#turnId,
      group: group.map((held) => held.toolUseId),
      persisted: group.flatMap((held) => (persisted.has(held.toolUseId) ? [held.toolUseId] : [])),
    })
    for (const held of group) {
      this.#decided.set(held.toolUseId, persisted.has(held.toolUseId))
      held.settle(persisted.has(held.toolUseId))
    }
  }
}

/**
 * Whether the message budget may persist this output or keep it whole: only then does it wait. A
 * tool whose limit is Infinity is never persisted, output over its tool's own limit always is,
 * and output of KEEP_WHOLE_CHARS or less never is for the message budget (decision 87).
 */
function undecided(fresh: Fresh): boolean {
  return (
    fresh.maxResultSizeChars !== Infinity && fresh.chars <= fresh.maxResultSizeChars && fresh.chars > KEEP_WHOLE_CHARS
  )
}
