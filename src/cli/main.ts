#!/usr/bin/env node
/** The `toolkernel` command. */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { argumentProblem } from './arguments.js'
import { COMMAND_HELP, HELP } from './help.js'
import { CliError, loadEvents } from './load-log.js'
import { safeForTerminal } from './terminal.js'

/**
 * Runs one command. What it prints comes from logs, models and tools, so `out` and `err` get it
 * only through `safeForTerminal`: here, at the boundary, where no call site can forget it. The
 * log commands print one line per `out` call (their newlines are escaped too, so a log cannot
 * forge lines); the demo, the help texts and `err` keep the line breaks of their text.
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
  if (command !== undefined && COMMAND_HELP[command] !== undefined && asksForHelp(rest)) {
    out(COMMAND_HELP[command])
    return 0
  }
  switch (command) {
    case 'demo': {
      const parsed = parse(
        command,
        rest,
        {
          log: { type: 'string', default: '.toolkernel/demo.jsonl' },
          stream: { type: 'boolean', default: false },
          verbose: { type: 'boolean', default: false },
        },
        err,
      )
      if (parsed === undefined) return 2
      // Loaded only here: the demo pulls in the whole kernel, which the log commands do not need.
      const { runDemo } = await import('./demo.js')
      await runDemo({
        logPath: String(parsed.log),
        out,
        stream: parsed.stream === true,
        verbose: parsed.verbose === true,
      })
      return 0
    }
    case 'replay':
    case 'inspect':
    case 'stats':
    case 'timeline':
      return logCommand(command, rest, line, err)
    case 'export':
      return (await import('./export.js')).exportCommand(rest, line, err)
    case 'help':
      return helpCommand(rest, out, err)
    case undefined:
    case '--help':
    case '-h':
      out(HELP)
      return command === undefined ? 2 : 0
    default:
      err(`toolkernel: unknown command "${command}"\n\n${HELP}`)
      return 2
  }
}

/** `--help` or `-h` among the arguments (before a `--`, after which everything is positional). */
function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--')
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h')
}

function helpCommand(args: readonly string[], out: (text: string) => void, err: (text: string) => void): number {
  const [topic, ...extra] = args
  if (topic === undefined || topic === 'help') {
    out(HELP)
    return 0
  }
  const text = COMMAND_HELP[topic]
  if (text === undefined || extra.length > 0) {
    err(`toolkernel help: ${text === undefined ? `no command "${topic}"` : 'name one command'}\n\n${HELP}`)
    return 2
  }
  out(text)
  return 0
}

const SKIP_CORRUPT = { 'skip-corrupt': { type: 'boolean' } } as const

type LogCommand = 'replay' | 'inspect' | 'stats' | 'timeline'

/** The options each log command takes, and no other. */
const LOG_OPTIONS: Record<LogCommand, NonNullable<ParseArgsConfig['options']>> = {
  replay: { tools: { type: 'string' }, quiet: { type: 'boolean' }, ...SKIP_CORRUPT },
  inspect: { at: { type: 'string' }, ...SKIP_CORRUPT },
  stats: { ...SKIP_CORRUPT },
  timeline: { html: { type: 'string' }, ...SKIP_CORRUPT },
}

type Values = ReturnType<typeof parseArgs>['values']

async function logCommand(
  command: LogCommand,
  args: string[],
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  let parsed: { values: Values; positionals: string[] }
  try {
    parsed = parseArgs({ args, options: LOG_OPTIONS[command], allowPositionals: true, strict: true })
  } catch (error) {
    err(`toolkernel ${command}: ${argumentProblem(command, error as Error)}`)
    return 2
  }
  const [path, ...extra] = parsed.positionals
  if (path === undefined || extra.length > 0) {
    const problem = path === undefined ? 'give a log file' : `give one log file, not ${parsed.positionals.length}`
    err(`toolkernel ${command}: ${problem}\n\n${COMMAND_HELP[command]}`)
    return 2
  }
  const values = parsed.values
  try {
    const { replayCommand, inspectCommand, statsCommand, timelineCommand } = await import('./commands.js')
    const events = await loadEvents(path, { skipCorrupt: values['skip-corrupt'] === true, err })
    switch (command) {
      case 'replay':
        return await replayCommand(events, { tools: stringOf(values.tools), quiet: values.quiet === true }, out)
      case 'inspect':
        return inspectCommand(events, stringOf(values.at), out)
      case 'stats':
        return statsCommand(events, out)
      default:
        return timelineCommand(events, stringOf(values.html), path, out)
    }
  } catch (error) {
    if (!(error instanceof CliError)) throw error
    err(`toolkernel ${command}: ${error.message}`)
    return 2
  }
}

const stringOf = (value: Values[string]): string | undefined => (typeof value === 'string' ? value : undefined)

function parse(
  command: string,
  args: string[],
  options: NonNullable<ParseArgsConfig['options']>,
  err: (line: string) => void,
) {
  try {
    return parseArgs({ args, options, allowPositionals: false, strict: true }).values
  } catch (error) {
    err(`toolkernel ${command}: ${argumentProblem(command, error as Error)}`)
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
