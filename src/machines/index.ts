import { toolCallMachine } from './tool-call.machine.js'

/** Every machine with a diagram in docs/statecharts, by file name. */
export const machines = { 'tool-call': toolCallMachine } as const
