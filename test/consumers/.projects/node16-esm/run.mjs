// Loads the packed package at run time (its files, its exports) and runs one batch turn.
import { builtinTools, createKernel } from 'toolkernel'

const kernel = createKernel({ tools: builtinTools, cwd: process.cwd() })
const { message } = await kernel.runTurn({
  role: 'assistant',
  content: [
    {
      type: 'tool_use',
      id: 'toolu_1',
      name: 'Read',
      input: { file_path: new URL('package.json', import.meta.url).pathname },
    },
  ],
  stop_reason: 'tool_use',
})
process.stdout.write(JSON.stringify(message))
