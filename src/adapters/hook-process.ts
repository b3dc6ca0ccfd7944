/**
 * Runs a command hook: bash -c with the hook's JSON on stdin, in its own process group so a
 * timeout kills the whole tree, stdout and stderr kept apart and capped.
 */
export interface HookProcessResult {
  exitCode: number | null
  stdout: string
  stderr: string
  timedOut: boolean
  /** Why it did not run or was cut short (not found, output too large, killed). */
  problem?: string
}

export const HOOK_OUTPUT_LIMIT = 1024 * 1024

export async function runHookProcess(
  command: string,
  options: { cwd: string; stdin: string; timeoutMs: number; signal: AbortSignal },
): Promise<HookProcessResult> {
  // An already-aborted signal never fires 'abort': do not start a hook nobody will wait for.
  if (options.signal.aborted)
    return {
      exitCode: null,
      stdout: '',
      stderr: '',
      timedOut: false,
      problem: 'the turn was interrupted before the hook ran',
    }
  const { execa } = await import('execa')
  const child = execa('bash', ['-c', command], {
    cwd: options.cwd,
    input: options.stdin,
    detached: true,
    reject: false,
    maxBuffer: HOOK_OUTPUT_LIMIT,
    stripFinalNewline: true,
    encoding: 'utf8',
  })
  let timedOut = false
  const kill = (): void => {
    if (child.pid === undefined) return
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  const timer = setTimeout(() => {
    timedOut = true
    kill()
  }, options.timeoutMs)
  options.signal.addEventListener('abort', kill, { once: true })
  try {
    const result = await child
    const problem = result.isMaxBuffer
      ? `it wrote more than ${HOOK_OUTPUT_LIMIT} bytes of output and was stopped`
      : result.failed && result.exitCode === undefined && !timedOut && !options.signal.aborted
        ? (result.shortMessage ?? 'it could not be started')
        : undefined
    const base = {
      exitCode: result.exitCode ?? null,
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? ''),
      timedOut,
    }
    return problem === undefined ? base : { ...base, problem }
  } finally {
    clearTimeout(timer)
    options.signal.removeEventListener('abort', kill)
    kill()
  }
}
