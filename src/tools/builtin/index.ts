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
import { TodoWrite } from './todo-write.tool.js'
import { AskUserQuestion } from './ask-user-question.tool.js'
import { WebFetch } from './web-fetch.tool.js'

export { Bash, BashOutput, Edit, Glob, Grep, KillShell, MultiEdit, NotebookEdit, Read, WebFetch, Write }
export { createRead, type ReadOptions } from './read.tool.js'
export type { PdfDocument, PdfLibrary, PdfLibraryLoader } from './pdf-pages.js'
export { TodoWrite, type TodoWriteInput } from './todo-write.tool.js'
export {
  AskUserQuestion,
  type AskUserQuestionInput,
  type Question,
  type QuestionOption,
} from './ask-user-question.tool.js'
export { EnterPlanMode, ExitPlanMode, planModeTools, type ExitPlanModeInput } from './plan-mode.tool.js'

/**
 * All of them, in the order a model usually meets them (BashOutput and KillShell serve Bash's
 * background shells; MultiEdit and NotebookEdit fall under Edit's permission rules; TodoWrite and
 * AskUserQuestion serve the session and the user; WebFetch reaches public addresses only,
 * `createWebFetch` for others).
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
  TodoWrite,
  AskUserQuestion,
  WebFetch,
]
