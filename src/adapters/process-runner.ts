/**
 * Runs shell commands with execa. Each command gets its own process group, so a timeout or an
 * abort kills the whole tree (a backgrounded `sleep` included), not only the shell. stderr is
 * redirected into stdout inside the shell, so output keeps the order it was written in.
 */
import type { ProcessRunner } from '../ports/index.js'

/** After SIGTERM, how long the tree has before SIGKILL. */
const KILL_GRACE_MS = 2000

export const execaProcessRunner: ProcessRunner = {
  async run(command, { cwd, timeoutMs, signal, onOutput }) {
    if (signal.aborted) return { output: '', exitCode: null, timedOut: false, aborted: true }
    // Loaded on first use: execa costs ~200 ms to import, and most turns run no shell.
    const { execa } = await import('execa')
    const child = execa('bash', ['-c', `exec 2>&1\n${command}`], {
      cwd,
      detached: true,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      reject: false,
      encoding: 'utf8',
      stripFinalNewline: false,
      buffer: false,
      env: { ...process.env, TERM: 'dumb', PAGER: 'cat', GIT_PAGER: 'cat' },
    })
    const chunks: string[] = []
    child.stdout?.setEncoding('utf8')
    child.stdout?.on('data', (chunk: string) => {
      chunks.push(chunk)
      onOutput?.(chunk)
    })
    let timedOut = false
    let aborted = false
    const killTree = (): void => {
      const pid = child.pid
      if (pid === undefined) return
      signalGroup(pid, 'SIGTERM')
      setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS).unref()
    }
    const timer = setTimeout(() => {
      timedOut = true
      killTree()
    }, timeoutMs)
    const onAbort = (): void => {
      aborted = true
      killTree()
    }
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      const result = await child
      const output = chunks.join('')
      if (result.failed && result.exitCode === undefined && !timedOut && !aborted) {
        return { output, exitCode: null, timedOut, aborted, startError: result.shortMessage ?? 'could not start bash' }
      }
      return { output, exitCode: result.exitCode ?? null, timedOut, aborted }
    } finally {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      // Children the command left running in its group go too: a finished command leaves nothing behind.
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL')
    }
  },
}

function signalGroup(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(-pid, name)
  } catch {
    // The group is already gone.
  }
}
