#!/usr/bin/env node
/** The `toolkernel` command. */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { runDemo } from './demo.js'

const HELP = `usage: toolkernel <command> [options]

commands:
  demo [--stream] [--log PATH]
                      run a scripted turn through the kernel and print what happened;
                      --stream replays a recorded model stream, then interrupts a turn
                      (writes the event log to PATH, default .toolkernel/demo.jsonl)
  help                show this text
`

export async function main(argv: readonly string[], out: (line: string) => void = console.log, err: (line: string) => void = console.error): Promise<number> {
  const [command, ...rest] = argv
  switch (command) {
    case 'demo': {
      const parsed = parse(rest, { log: { type: 'string', default: '.toolkernel/demo.jsonl' }, stream: { type: 'boolean', default: false } }, err)
      if (parsed === undefined) return 2
      await runDemo({ logPath: String(parsed.log), out, stream: parsed.stream === true })
      return 0
    }
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
    console.error(`toolkernel: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 1
  },
)
