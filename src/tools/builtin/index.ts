/** The built-in tools a coding agent needs. Each uses only the tool contract and its ports. */
import type { Tool } from '../tool.types.js'
import { Bash } from './bash.tool.js'
import { Edit } from './edit.tool.js'
import { Glob } from './glob.tool.js'
import { Grep } from './grep.tool.js'
import { Read } from './read.tool.js'
import { Write } from './write.tool.js'

export { Bash, Edit, Glob, Grep, Read, Write }
export { EnterPlanMode, ExitPlanMode, planModeTools, type ExitPlanModeInput } from './plan-mode.tool.js'

/** All six, in the order a model usually meets them. */
export const builtinTools: readonly Tool[] = [Read, Glob, Grep, Edit, Write, Bash]
