/**
 * AskUserQuestion: the model asks the user one to four multiple-choice questions, as in Claude
 * Code. The questions reach the user through the permission "ask" (the tool always asks, and no
 * rule, mode, hook or grant answers for a person): the app's `canUseTool` shows `request.input`
 * and allows with `updatedInput: { ...input, answers }`, or the call parks until
 * `kernel.answer(id, { behavior: 'allow', updatedInput })`, in this process or another. The call
 * then gives the model the answers; without answers it says so and invents none
 * (docs/approvals.md §Questions for the user).
 */
import { z } from 'zod'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'

export interface QuestionOption {
  /** What the user picks: one to five words. */
  label: string
  /** What the choice means or implies. */
  description: string
}

export interface Question {
  /** The whole question, ending with a question mark. */
  question: string
  /** A very short label for the question (at most 12 characters), shown as a chip. */
  header: string
  /** Two to four choices; the app may also let the user type an answer of their own. */
  options: QuestionOption[]
  /** Whether the user may pick more than one choice. */
  multiSelect: boolean
}

export interface AskUserQuestionInput {
  questions: Question[]
  /**
   * The user's answers, by question text: filled in by the app (the permission answer's
   * `updatedInput`), never by the model. Several choices of a multiSelect question are joined with ", ".
   */
  answers?: Record<string, string> | undefined
}

export const MAX_HEADER_CHARS = 12

const OptionSchema = z.strictObject({
  label: z.string().trim().min(1).describe('The choice as the user sees it: one to five words'),
  description: z.string().describe('What this choice means, or what follows from it'),
})

const QuestionSchema = z.strictObject({
  question: z.string().trim().min(1).describe('The whole question, clear and specific, ending with a question mark'),
  header: z
    .string()
    .trim()
    .min(1)
    .max(MAX_HEADER_CHARS)
    .describe(`A very short label shown as a chip (at most ${MAX_HEADER_CHARS} characters): "Auth method", "Library"`),
  options: z.array(OptionSchema).min(2).max(4).describe('Two to four choices, each distinct'),
  multiSelect: z.boolean().default(false).describe('true when the user may pick more than one choice'),
})

const InputSchema = z
  .strictObject({
    questions: z.array(QuestionSchema).min(1).max(4).describe('One to four questions'),
    answers: z
      .record(z.string(), z.string())
      .optional()
      .describe('Leave this out: the app fills it in with the user’s answers'),
  })
  .superRefine((input, ctx) => {
    const texts = new Map<string, number>()
    for (const [i, q] of input.questions.entries()) {
      const first = texts.get(q.question)
      if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['questions', i, 'question'],
          message: `the same question as questions[${first}]: each question is asked once`,
        })
      texts.set(q.question, i)
      const labels = new Map<string, number>()
      for (const [j, option] of q.options.entries()) {
        const twin = labels.get(option.label)
        if (twin !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['questions', i, 'options', j, 'label'],
            message: `the same label as options[${twin}] (${JSON.stringify(option.label)}): the labels of a question differ`,
          })
        labels.set(option.label, j)
      }
    }
    for (const asked of Object.keys(input.answers ?? {}))
      if (!texts.has(asked))
        ctx.addIssue({
          code: 'custom',
          path: ['answers', asked],
          message: 'an answer to a question that was not asked: answers are keyed by the exact question text',
        })
  })

const PROMPT = [
  'Asks the user one to four multiple-choice questions and returns their answers. Use it when you need the user’s decision to go on: an ambiguous instruction, a choice between approaches, a preference (a library, a name, a trade-off), a requirement you cannot find out yourself. Do not use it for what you can find out by reading or running things, nor to ask for approval of a plan (in plan mode, ExitPlanMode does that).',
  `Each question has: question (the whole question, ending with "?"), header (a chip label of at most ${MAX_HEADER_CHARS} characters), options (two to four distinct choices, each a short label of one to five words and a description of what it means) and multiSelect (true when several choices may be picked). The user can always type an answer of their own instead, so do not add an "Other" option. If you recommend a choice, put it first and end its label with "(Recommended)".`,
  'Leave out answers: the user fills them in. Calls after this one wait for the answers, which may take a while. The result lists each question with the user’s answer; when the user gives none, the result says so — then do not guess an answer.',
].join('\n\n')

/** AskUserQuestion: multiple-choice questions for the user, answered through the app's permission prompt. */
export const AskUserQuestion = buildTool<AskUserQuestionInput, string, unknown, 'AskUserQuestion'>({
  name: 'AskUserQuestion',
  searchHint: 'ask user question clarify choose option decision preference',
  category: 'session',
  description: () => 'Asks the user multiple-choice questions and returns the answers.',
  prompt: () => PROMPT,
  activityDescription: () => 'Asking the user',
  inputSchema: lazySchema(() => InputSchema as unknown as z.ZodType<AskUserQuestionInput>),
  // It touches no file; what it needs is a person, which the permission step provides.
  isReadOnly: () => true,
  requiresUserInteraction: () => true,
  // Answers come only from the app: answers the model wrote itself are refused (input the app or
  // a hook gives back is checked by the schema alone, so the app's answers pass).
  validateInput: (input) =>
    input.answers === undefined
      ? { result: true }
      : {
          result: false,
          message: 'answers is filled in by the app with the user’s answers; leave it out and ask only the questions',
        },
  // Always asks: this is how the questions reach the user (`request.input` holds them).
  checkPermissions: (input) => ({ behavior: 'ask', message: askedText(input.questions) }),
  async call(input) {
    const answers = input.answers ?? {}
    if (Object.keys(answers).length === 0) throw new Error(NO_ANSWER)
    return answeredText(input.questions, answers)
  },
})

/** The reason the permission request carries: the questions, one a line. */
export function askedText(questions: readonly Question[]): string {
  const lines = questions.map((q, i) => `${i + 1}. [${q.header}] ${q.question}`)
  return `The model asks the user ${questions.length === 1 ? 'a question' : `${questions.length} questions`}:\n${lines.join('\n')}`
}

const NO_ANSWER =
  'the user gave no answers: the call was allowed without answers in its input (an app answers with updatedInput: { ...input, answers }). Do not assume any answer: go on without it and say what you assumed, or ask again later.'

/** What the model reads: each question with the user's answer, in the order asked. */
export function answeredText(questions: readonly Question[], answers: Readonly<Record<string, string>>): string {
  const lines = questions.map((q) => {
    const answer = answers[q.question]
    return `- ${JSON.stringify(q.question)} → ${answer === undefined ? '(no answer)' : JSON.stringify(answer)}`
  })
  return `The user answered your questions:\n${lines.join('\n')}\nGo on with these answers in mind.`
}
