/** The built-in tools a coding agent needs. Each uses only the tool contract and its ports. */
import type { Tool } from '../tool.types.js'
import { Bash } from './bash.tool.js'
import { BashOutput } from './bash-output.tool.js'
import { KillShell } from './kill-shell.tool.js'
import { Edit } from './edit.tool.js'
import { Glob } from './glob.tool.js'
import { Grep } from './grep.tool.js'
import { MultiEdit } from './multi-edit.tool.js'
import { NotebookEdit } from './notebook-edit.tool.js'
import { Read } from './read.tool.js'
import { Write } from './write.tool.js'

export { Bash, BashOutput, Edit, Glob, Grep, KillShell, MultiEdit, NotebookEdit, Read, Write }
export { createRead, type ReadOptions } from './read.tool.js'
export type { PdfDocument, PdfLibrary, PdfLibraryLoader } from './pdf-pages.js'
export { EnterPlanMode, ExitPlanMode, planModeTools, type ExitPlanModeInput } from './plan-mode.tool.js'

/**
 * All ten, in the order a model usually meets them (BashOutput and KillShell serve Bash's
 * background shells; MultiEdit and NotebookEdit fall under Edit's permission rules).
 */
export const builtinTools: readonly Tool[] = [
  Read,
  Glob,
  Grep,
  Edit,
  MultiEdit,
  Write,
  NotebookEdit,
  Bash,
  BashOutput,
  KillShell,
]
