import { expect, it } from 'vitest'
import { checkToolLayer } from 'toolkernel/testing'
import { notesTools } from '../src/notes.js'

it('our tool layer keeps every promise under random turns, faults and aborts', async () => {
  const report = await checkToolLayer(
    // A fresh world per run: the kit also re-runs clean turns one call at a time to check
    // that the tools claiming to be concurrency-safe really are.
    () => ({
      tools: notesTools(),
      permissions: { allow: ['ListNotes', 'AddNote'], ask: ['DeleteNote'] },
      maxConcurrency: 4,
    }),
    {
      numRuns: 30,
      // Our intent, checked against what really ran: nothing deletes without a person.
      mustNotRun: ({ name }) => (name === 'DeleteNote' ? 'deleting a note needs a person' : undefined),
    },
  )
  expect(report.ok).toBe(true)
})
