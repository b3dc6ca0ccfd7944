#!/usr/bin/env node
/** The `toolkernel` command. */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { CliError, loadEvents } from './load-log.js'
import { safeForTerminal } from './terminal.js'

const HELP = `usage: toolkernel <command> [options]

commands:
  demo [--stream] [--log PATH]
                      run a scripted turn through the kernel and print what happened;
                      --stream replays a recorded model stream, then interrupts a turn
                      (writes the event log to PATH, default .toolkernel/demo.jsonl)
  replay <log> [--tools MODULE] [--quiet] [--skip-corrupt]
                      timeline, projected messages, and a determinism check that re-executes
                      the log; exit code 1 on divergence
  inspect <log> --at N
                      each call's state after event N
  stats <log>         counts, time queued and running, error classes
  timeline <log> [--html FILE]
                      the timeline as text, or as a self-contained HTML page
  export <log> --otlp URL | --chrome-trace FILE
                      the tool calls as OpenTelemetry spans, to an OTLP/HTTP receiver or
                      a Chrome/Perfetto trace file (toolkernel export --help for more)
  help                show this text
`

/**
 * Runs one command. What it prints comes from logs, models and tools, so `out` and `err` get it
 * only through `safeForTerminal`: here, at the boundary, where no call site can forget it. The
 * log commands print one line per `out` call (their newlines are escaped too, so a log cannot
 * forge lines); the demo and `err` keep the line breaks of their text.
 */
export async function main(
  argv: readonly string[],
  write: (line: string) => void = console.log,
  writeErr: (line: string) => void = console.error,
): Promise<number> {
  const out = (text: string) => write(safeForTerminal(text, { newlines: true }))
  const line = (text: string) => write(safeForTerminal(text))
  const err = (text: string) => writeErr(safeForTerminal(text, { newlines: true }))
  const [command, ...rest] = argv
  switch (command) {
    case 'demo': {
      const parsed = parse(
        rest,
        { log: { type: 'string', default: '.toolkernel/demo.jsonl' }, stream: { type: 'boolean', default: false } },
        err,
      )
      if (parsed === undefined) return 2
      // Loaded only here: the demo pulls in the whole kernel, which the log commands do not need.
      const { runDemo } = await import('./demo.js')
      await runDemo({ logPath: String(parsed.log), out, stream: parsed.stream === true })
      return 0
    }
    case 'replay':
    case 'inspect':
    case 'stats':
    case 'timeline':
      return logCommand(command, rest, line, err)
    case 'export':
      return (await import('./export.js')).exportCommand(rest, line, err)
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      out(HELP)
      return command === undefined ? 2 : 0
    default:
      err(`toolkernel: unknown command "${command}"\n\n${HELP}`)
      return 2
  }
}

async function logCommand(
  command: string,
  args: string[],
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof LOG_OPTIONS; allowPositionals: true; strict: true }>>
  try {
    parsed = parseArgs({ args, options: LOG_OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    err(`toolkernel ${command}: ${(error as Error).message}`)
    return 2
  }
  const [path, ...extra] = parsed.positionals
  if (path === undefined || extra.length > 0) {
    err(`toolkernel ${command}: give exactly one log file\n\n${HELP}`)
    return 2
  }
  try {
    const { replayCommand, inspectCommand, statsCommand, timelineCommand } = await import('./commands.js')
    const events = await loadEvents(path, { skipCorrupt: parsed.values['skip-corrupt'] === true, err })
    switch (command) {
      case 'replay':
        return await replayCommand(events, { tools: parsed.values.tools, quiet: parsed.values.quiet === true }, out)
      case 'inspect':
        if (parsed.values.at === undefined) throw new CliError('inspect needs --at N (an event number)')
        return inspectCommand(events, Number(parsed.values.at), out)
      case 'stats':
        return statsCommand(events, out)
      default:
        return timelineCommand(events, parsed.values.html, path, out)
    }
  } catch (error) {
    if (!(error instanceof CliError)) throw error
    err(`toolkernel ${command}: ${error.message}`)
    return 2
  }
}

const LOG_OPTIONS = {
  tools: { type: 'string' },
  quiet: { type: 'boolean' },
  'skip-corrupt': { type: 'boolean' },
  at: { type: 'string' },
  html: { type: 'string' },
} as const

function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>, err: (line: string) => void) {
  try {
    return parseArgs({ args, options, allowPositionals: false, strict: true }).values
  } catch (error) {
    err(`toolkernel: ${(error as Error).message}`)
    return undefined
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error)
    console.error(safeForTerminal(`toolkernel: ${message}`, { newlines: true }))
    process.exitCode = 1
  },
)
