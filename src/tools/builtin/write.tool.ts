import { z } from 'zod'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import { staleReason } from './file-ledger.js'
import { saveChange, writablePathCheck } from './file-change.js'
import { writeTarget } from './paths.js'

const inputSchema = lazySchema(() =>
  z.strictObject({
    file_path: z.string().describe('Absolute path of the file to write; missing parent directories are created'),
    content: z.string().describe('The complete new content of the file'),
  }),
)

/** Write: creates a file, or replaces one the model has read. */
export const Write = buildTool({
  name: 'Write',
  aliases: ['WriteFile'],
  searchHint: 'write create save file overwrite',
  category: 'files',
  description: () => 'Writes a whole file.',
  prompt: () =>
    [
      'Writes content to the file at the given absolute path, creating it (and any missing parent directories) or replacing it whole.',
      'To change part of an existing file, use Edit instead: it is safer and shows the result.',
      'An existing file may only be overwritten after you have Read it in this session, and only if it has not changed on disk since; otherwise the call fails and tells you to Read it again.',
      'Returns how many bytes were written.',
    ].join(' '),
  inputSchema,
  getPath: (input) => input.file_path,
  activityDescription: (input) => `Writing ${input.file_path}`,
  isDestructive: () => true,
  // Changing files asks unless a rule allows it or the mode is acceptEdits (inside the working directory).
  checkPermissions: (input) => ({ behavior: 'ask', message: `write ${input.file_path}` }),
  validateInput: (input, context) => writablePathCheck(input.file_path, context),
  async call({ file_path: path, content }, context) {
    const { ports } = context
    // The real path approved, checked again now: a link swapped in since throws (check-then-use).
    const target = writeTarget(context, path)
    const existing = await ports.fs.stat(path)
    if (existing !== undefined && existing.kind !== 'file') throw new Error(`${path} exists and is not a file`)
    if (existing !== undefined) {
      const stale = await staleReason(ports, path, 'overwrite')
      if (stale !== undefined) throw new Error(stale)
    }
    await saveChange(context, path, target, content)
    const bytes = Buffer.byteLength(content, 'utf8')
    return `${existing === undefined ? 'Created' : 'Overwrote'} ${path} (${bytes} bytes written)`
  },
})
