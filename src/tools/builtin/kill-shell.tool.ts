import { z } from 'zod'
import type { ShellKilled } from '../../ports/index.js'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import { unknownShell } from './bash-output.tool.js'

export interface KillShellInput {
  shell_id: string
}

const inputSchema = lazySchema(() =>
  z.strictObject({
    shell_id: z.string().min(1).describe('The id Bash gave when it started the command in the background'),
  }),
)

/** KillShell: stops a background shell Bash started, and every process in its group. */
export const KillShell = buildTool<KillShellInput, ShellKilled, unknown, 'KillShell'>({
  name: 'KillShell',
  searchHint: 'stop kill background shell dev server',
  category: 'shell',
  description: () => 'Stops a background shell.',
  prompt: () =>
    [
      'Stops a command started with Bash run_in_background: SIGTERM to its process group, SIGKILL a second later to whatever is left. Returns once it is gone, with how it ended.',
      'Read its last output with BashOutput first if you need it. Only shells started in this session can be stopped; one that already exited is reported as such.',
    ].join(' '),
  inputSchema,
  maxResultSizeChars: 10_000,
  // It waits for the group to be gone (at most the kill grace): stopping it halfway helps no one.
  interruptBehavior: () => 'block',
  isDestructive: () => true,
  userFacingName: () => 'KillShell',
  async call({ shell_id }, { ports, turnId, toolUseId }) {
    const shells = ports.shells
    if (shells === undefined) throw new Error('there are no background shells here (the kernel has none)')
    const killed = await shells.kill(shell_id, { by: { turnId, toolUseId } })
    if (killed === undefined) throw new Error(unknownShell(shell_id, shells.ids()))
    return killed
  },
  mapToolResultToToolResultBlockParam(killed, toolUseId) {
    const how =
      killed.exitSignal !== null ? `killed by ${killed.exitSignal}` : `exit code ${killed.exitCode ?? 'unknown'}`
    const content = killed.alreadyExited
      ? `Shell ${killed.shellId} had already exited (${how}); nothing to stop.`
      : `Shell ${killed.shellId} was stopped (${how}): ${killed.command}`
    return { type: 'tool_result', tool_use_id: toolUseId, content }
  },
})
