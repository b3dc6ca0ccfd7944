/**
 * The code the built-in search's workers run, as a string (grep-worker.ts says why): plain
 * JavaScript that needs only node:fs and node:worker_threads. Protocol: a `start` message with the
 * pattern, the mode and a shared control buffer, then `files` batches of `{ id, path }`, each
 * answered in turn with the results of the files that matched.
 *
 * Reading: each file is opened with O_NONBLOCK and fstat'ed (one that is no longer a regular file
 * is skipped); a NUL in its first 64 KiB makes it binary (skipped), a NUL further on ends it at its
 * line. A large file is decoded a piece at a time, cut at lines, with the last `context` lines of
 * each piece carried into the next for context.
 *
 * Matching: lines are what `text.split(/\r?\n/)` gives (the last one dropped when
 * empty), and `^` and `$` match at their ends only, as in ripgrep's `--crlf`. The whole text is
 * searched at once with a global, multiline copy of the pattern to find candidate lines quickly,
 * and each candidate line is then tested alone with the pattern itself, so the answer is exactly
 * the line-by-line one: a candidate is never missed, because a match within a line is also a match
 * in the whole text (multiline `^` and `$` match at every line end). A lookaround can see past the
 * end of a line in the whole text, so such patterns are tested line by line from the start.
 */
export const WORKER_SOURCE = String.raw`'use strict'
const fs = require('node:fs')
const { parentPort } = require('node:worker_threads')
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK || 0)
const BINARY_CHECK = 65536
const KEEP_SCRATCH = 8 * 1024 * 1024
let scratch = Buffer.allocUnsafe(1024 * 1024)
let search

parentPort.on('message', (message) => {
  if (message.type === 'start') {
    search = start(message)
    return
  }
  const control = search.control
  const results = []
  for (const file of message.files) {
    if (Atomics.load(control, 2) === 1) break
    Atomics.store(control, 0, file.id + 1)
    const result = searchFile(search, file)
    if (result !== undefined && result.count > 0) results.push(result)
  }
  Atomics.store(control, 0, 0)
  if (scratch.length > KEEP_SCRATCH) scratch = Buffer.allocUnsafe(1024 * 1024)
  parentPort.postMessage(results)
})

function start(m) {
  const flags = m.ignoreCase ? 'i' : ''
  return {
    line: new RegExp(m.pattern, flags),
    whole: /\(\?<?[=!]/.test(m.pattern) ? undefined : new RegExp(m.pattern, flags + 'gm'),
    content: m.mode === 'content',
    context: m.context,
    maxMatches: m.maxMatches,
    pieceBytes: m.pieceBytes,
    control: new Int32Array(m.control),
  }
}

function searchFile(s, file) {
  let fd
  try {
    fd = fs.openSync(file.path, OPEN_FLAGS)
  } catch {
    return undefined
  }
  try {
    const stat = fs.fstatSync(fd)
    return stat.isFile() ? searchPieces(s, file.id, fd, stat.size) : undefined
  } catch {
    return undefined
  } finally {
    fs.closeSync(fd)
  }
}

function ensure(size, keep) {
  if (scratch.length >= size) return
  const bigger = Buffer.allocUnsafe(Math.max(size, scratch.length * 2))
  scratch.copy(bigger, 0, 0, keep)
  scratch = bigger
}

function searchPieces(s, id, fd, size) {
  const out = { id, count: 0, hits: [] }
  const collect = s.content ? collector(s.context, out.hits) : undefined
  const piece = s.pieceBytes
  let filled = 0
  let read = 0
  let eof = size === 0
  let firstLine = 1
  let overlap = ''
  for (;;) {
    Atomics.store(s.control, 1, 1)
    let end = 0
    for (;;) {
      if (eof && filled <= piece) {
        end = filled
        break
      }
      if (filled > 0) end = scratch.lastIndexOf(10, Math.min(filled, piece) - 1) + 1
      if (end === 0 && filled > piece) end = scratch.subarray(0, filled).indexOf(10, piece) + 1
      if (end > 0 || eof) break
      const from = filled
      const want = Math.max(piece, BINARY_CHECK, filled * 2)
      ensure(want, filled)
      while (filled < want) {
        const n = fs.readSync(fd, scratch, filled, want - filled, read)
        if (n === 0) break
        filled += n
        read += n
      }
      eof = filled < want || read >= size
      const nul = scratch.subarray(0, filled).indexOf(0, from)
      if (nul !== -1 && nul + read - filled < BINARY_CHECK) return undefined
      if (nul !== -1) {
        filled = scratch.lastIndexOf(10, nul) + 1
        eof = true
      }
    }
    if (end === 0) end = filled
    if (end === 0) break
    const more = end < filled || !eof
    const text = overlap + scratch.toString('utf8', 0, end)
    Atomics.store(s.control, 1, 2)
    if (!searchPiece(s, text, overlap.length, firstLine, out, collect) || !more) break
    firstLine += countLines(scratch, end)
    if (collect !== undefined) {
      collect.flushAfter(firstLine - 1)
      overlap = lastLines(text, s.context)
    }
    scratch.copyWithin(0, end, filled)
    filled -= end
  }
  if (collect !== undefined) collect.finish()
  return out
}

function countLines(bytes, end) {
  let lines = 0
  for (let at = bytes.indexOf(10); at !== -1 && at < end; at = bytes.indexOf(10, at + 1)) lines++
  return lines
}

function lastLines(text, count) {
  let start = text.length
  for (let i = 0; i < count && start > 0; i++) start = start >= 2 ? text.lastIndexOf('\n', start - 2) + 1 : 0
  return text.slice(start)
}

function searchPiece(s, text, from, firstLine, out, collect) {
  if (collect !== undefined) collect.piece(text, from)
  let going = true
  eachMatchingLine(s, text, from, firstLine, (start, end, lineNo) => {
    out.count++
    if (collect !== undefined) collect.match(start, end, lineNo)
    going = out.count < s.maxMatches
    return going
  })
  return going
}

function lineText(text, start, end) {
  return end < text.length && end > start && text.charCodeAt(end - 1) === 13
    ? text.slice(start, end - 1)
    : text.slice(start, end)
}

function eachMatchingLine(s, text, from, firstLine, visit) {
  const n = text.length
  if (s.whole === undefined) {
    for (let start = from, lineNo = firstLine; start < n; lineNo++) {
      let end = text.indexOf('\n', start)
      if (end === -1) end = n
      if (s.line.test(lineText(text, start, end)) && !visit(start, end, lineNo)) return
      start = end + 1
    }
    return
  }
  const re = s.whole
  re.lastIndex = from
  let lineStart = from
  let lineNo = firstLine
  for (;;) {
    const m = re.exec(text)
    if (m === null) return
    const at = m.index
    if (at >= n && (n === 0 || text.charCodeAt(n - 1) === 10)) return
    for (;;) {
      const nl = text.indexOf('\n', lineStart)
      if (nl === -1 || nl >= at) break
      lineStart = nl + 1
      lineNo++
    }
    let end = text.indexOf('\n', at)
    if (end === -1) end = n
    if (s.line.test(lineText(text, lineStart, end)) && !visit(lineStart, end, lineNo)) return
    if (end >= n) return
    re.lastIndex = end + 1
  }
}

function collector(context, hits) {
  let text = ''
  let emitted = 0
  let cursor = 0
  let afterUntil = 0
  const push = (line, start, end, match) => hits.push({ line, text: lineText(text, start, end), match })
  const flushAfter = (upTo) => {
    const last = Math.min(afterUntil, upTo)
    while (emitted < last && cursor < text.length) {
      let end = text.indexOf('\n', cursor)
      if (end === -1) end = text.length
      push(emitted + 1, cursor, end, false)
      emitted++
      cursor = end + 1
    }
  }
  return {
    piece(t, from) {
      text = t
      cursor = from
    },
    match(start, end, lineNo) {
      flushAfter(lineNo - 1)
      const before = []
      let lineEnd = start - 1
      for (let k = lineNo - 1; k >= Math.max(emitted + 1, lineNo - context); k--) {
        const lineStart = lineEnd === 0 ? 0 : text.lastIndexOf('\n', lineEnd - 1) + 1
        before.push([k, lineStart, lineEnd])
        lineEnd = lineStart - 1
      }
      for (let i = before.length - 1; i >= 0; i--) push(before[i][0], before[i][1], before[i][2], false)
      push(lineNo, start, end, true)
      emitted = lineNo
      cursor = end + 1
      afterUntil = lineNo + context
    },
    flushAfter,
    finish() {
      flushAfter(Infinity)
    },
  }
}
`
