/** The post-hook step: PostToolUse (after success) or PostToolUseFailure hooks may add context. */
import { runHooksStep } from './run-hooks.js'

export const runPostHooksStep = runHooksStep('post')
