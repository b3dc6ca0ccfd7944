/** The app's own tools: notes kept in memory. AddNote and DeleteNote write; ListNotes only reads. */
import { buildTool } from 'toolkernel'
import { z } from 'zod'

export function notesTools() {
  const notes = new Map<string, string>()
  const ListNotes = buildTool({
    name: 'ListNotes',
    description: () => 'Lists the titles of all notes.',
    inputSchema: z.object({}),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    call: async () => [...notes.keys()].sort().join('\n') || '(no notes)',
  })
  const AddNote = buildTool({
    name: 'AddNote',
    description: () => 'Adds or replaces a note.',
    inputSchema: z.object({ title: z.string().min(1).max(40), text: z.string().max(200) }),
    call: async ({ title, text }) => {
      notes.set(title, text)
      return `saved ${title}`
    },
  })
  const DeleteNote = buildTool({
    name: 'DeleteNote',
    description: () => 'Deletes a note.',
    inputSchema: z.object({ title: z.string() }),
    isDestructive: () => true,
    call: async ({ title }) => (notes.delete(title) ? `deleted ${title}` : `no note ${title}`),
  })
  return [ListNotes, AddNote, DeleteNote]
}
