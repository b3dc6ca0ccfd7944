/** What `toolkernel --help` and `toolkernel <command> --help` print. */

const LOG = `<log> is a JSONL event log file, or a session in PostgreSQL: postgres://user@host:5432/db#session`
const SKIP_CORRUPT = `  --skip-corrupt  go on past lines that are not events (each one is reported on stderr)`
const HELP_FLAG = `  -h, --help      show this text`

const DEMO = `usage: toolkernel demo [--stream] [--verbose] [--log PATH]

Runs a scripted coding turn through the kernel with the built-in tools, in a scratch directory,
and prints a summary of each turn (its calls, their outcomes, the time); the event log it writes
is one to try the other commands on.

options:
  --log PATH      where to write the event log (default .toolkernel/demo.jsonl)
  --stream        replay a recorded model stream instead, then interrupt a turn
  --verbose       print each turn in full: its batches, every event, the tool_result message
${HELP_FLAG}`

const REPLAY = `usage: toolkernel replay <log> [--tools MODULE] [--quiet] [--skip-corrupt]

Prints the log's timeline and the messages it projects to, then re-executes it: the scheduler
and every call's steps run again, each outside answer (tool output, hook result, the user's
permission answer, completion order) is read from the log, and every decision the engine makes
now is compared with the one the log recorded. No tool, hook or prompt runs.

${LOG}

options:
  --tools MODULE  a JavaScript module (.js or .mjs) with the app's real tools, so that their
                  schemas are checked too. It exports them as \`tools\` (a default export of
                  the array works too), each made with buildTool:
                      import { buildTool } from 'toolkernel'
                      export const tools = [buildTool({ name: 'AddNote', ... })]
                  A tool of the module is used where the log has a tool of that name. Loading
                  it runs its code: pass only a module you trust.
  --quiet         print only the determinism check
${SKIP_CORRUPT}
${HELP_FLAG}

Without --tools, the log's own tools are stand-ins built from it (built-in tools whose schema
the log recorded unchanged are the real ones). A stand-in answers as the log recorded, but it
has no schema: where the log shows an input refused as invalid, replay takes that verdict and
its text from the log and lists it as
  not checked: <call> <tool> (turn T, event N): input validation — the log says: …
Everything else is checked. A tool's own validateInput is never run again, with or without
--tools: what a validator saw of the world is an outside answer, and its recorded verdict is
replayed.

exit code: 0 nothing that was checked diverged (what was not checked is listed); 1 a divergence
(the first event where the engine now decides differently is shown); 2 a bad argument or log.`

const INSPECT = `usage: toolkernel inspect <log> [--at N] [--skip-corrupt]

Each tool call's state after event N: the step it is in (or how it ended) and the last event
that moved it. Without --at, after the last event of the log: each call's final state.

${LOG}

options:
  --at N          an event number (seq), from 0 to the log's last
${SKIP_CORRUPT}
${HELP_FLAG}`

const STATS = `usage: toolkernel stats <log> [--skip-corrupt]

Counts of events, turns and calls; outcomes, tools and error classes; and each call's time
waiting in the queue apart from its time running (median, p90, max).

${LOG}

options:
${SKIP_CORRUPT}
${HELP_FLAG}`

const TIMELINE = `usage: toolkernel timeline <log> [--html FILE] [--skip-corrupt]

The log as a timeline, one row per event (ms since each turn started); with --html, a
self-contained HTML page with a bar per call, grouped by batch, that any browser opens from disk.

${LOG}

options:
  --html FILE     write the page to FILE instead of printing text
${SKIP_CORRUPT}
${HELP_FLAG}`

/** Also the usage `toolkernel export` prints with a usage error. */
export const EXPORT_HELP = `usage: toolkernel export <log> [--otlp URL] [--chrome-trace FILE] [--session ID] [--content]
                        [--header NAME=VALUE]… [--skip-corrupt]

The log's tool calls as OpenTelemetry spans (an execute_tool span per call, with the queue
wait, the permission wait and the run apart), sent to an OTLP/HTTP receiver and/or written as a
Chrome trace. A log cut off mid-turn has its open calls closed as recovery would.

${LOG}

options:
  --otlp URL             send to this OTLP/HTTP receiver (e.g. http://127.0.0.1:4318); needs the
                         OpenTelemetry SDK packages installed
  --chrome-trace FILE    write a Chrome trace (open it in https://ui.perfetto.dev)
  --session ID           the session id the spans carry
  --content              add the calls' arguments and results to the spans
  --header NAME=VALUE    an HTTP header for the receiver (repeatable)
${SKIP_CORRUPT}
${HELP_FLAG}`

/** Each command's help, by name. */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  demo: DEMO,
  replay: REPLAY,
  inspect: INSPECT,
  stats: STATS,
  timeline: TIMELINE,
  export: EXPORT_HELP,
}

export const HELP = `usage: toolkernel <command> [options]

commands:
  demo       run a scripted turn through the kernel and print what happened
  replay     timeline, projected messages, and a determinism check that re-executes the log
             (--tools MODULE checks the app's real tools too)
  inspect    each call's state after event N (without --at: after the last event)
  stats      counts, time queued and running, error classes
  timeline   the timeline as text, or as a self-contained HTML page
  export     the tool calls as OpenTelemetry spans (OTLP/HTTP) or a Chrome trace
  help       this text; toolkernel help <command> (or <command> --help) for a command's own

more: docs/cli.md in the toolkernel package`
