/** The pre-hook step: PreToolUse hooks may block, ask, allow, rewrite the input or add context. */
import { runHooksStep } from './run-hooks.js'

export const runPreHooksStep = runHooksStep('pre')
