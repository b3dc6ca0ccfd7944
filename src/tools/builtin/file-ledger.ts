/**
 * What Read recorded, so Write and Edit can refuse to overwrite a file the model has not seen, or
 * that changed on disk since it read it. Kept in the kernel's session state, never in a global.
 */
import type { ToolPorts } from '../../ports/index.js'

interface ReadRecord {
  mtimeMs: number
  /** The lines read, for the record; any read makes the file known. */
  range: { offset: number; limit: number } | 'all'
}

const KEY = 'toolkernel.builtin.reads'

function ledger(ports: ToolPorts): Map<string, ReadRecord> {
  let map = ports.session.get<Map<string, ReadRecord>>(KEY)
  if (map === undefined) {
    map = new Map()
    ports.session.set(KEY, map)
  }
  return map
}

export function recordRead(ports: ToolPorts, path: string, mtimeMs: number, range: ReadRecord['range']): void {
  ledger(ports).set(path, { mtimeMs, range })
}

/** Why the file may not be changed now, or undefined when it may. */
export async function staleReason(ports: ToolPorts, path: string, verb: string): Promise<string | undefined> {
  const record = ledger(ports).get(path)
  if (record === undefined)
    return `${path} has not been read in this session; Read it before you ${verb} it, so you know what you are replacing`
  const now = await ports.fs.stat(path)
  if (now !== undefined && now.mtimeMs !== record.mtimeMs) {
    return `${path} changed on disk since you read it (someone or something else modified it); Read it again before you ${verb} it`
  }
  return undefined
}
