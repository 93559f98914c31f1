/**
 * Lines for an output (stdout) gathered as bytes and written together: one write for many lines, and each line
 * encoded as it arrives, so that its text dies young. Kept as strings until the write, a batch of request lines
 * outlived the young generation's collections: each copied it, then it was promoted and collected once more, and
 * that, more than making the lines, was what a line per request cost a token-checked read (issue 10).
 */

/** What a batch writes to: `process.stdout`, or any writable stream. */
export interface LineOutput {
  readonly write: (chunk: Uint8Array | string) => unknown
  /** Bytes the stream still holds; 0 once a write has been handed to the system. */
  readonly writableLength?: number
}

export interface LineBatch {
  /** Adds one line (its newline is added here). */
  readonly add: (line: string) => void
  /** Writes what is gathered, if anything. */
  readonly flush: () => void
}

/** How many bytes a batch gathers before it is written whatever the time. */
export const LINE_BATCH_BYTES = 256 * 1024

export const makeLineBatch = (output: LineOutput, capacity = LINE_BATCH_BYTES): LineBatch => {
  let bytes = Buffer.allocUnsafe(capacity)
  let used = 0
  const flush = () => {
    if (used === 0) return
    const chunk = bytes.subarray(0, used)
    used = 0
    output.write(chunk)
    // A write to a file, a pipe or a terminal is synchronous on Linux: the bytes are the system's when it returns
    // and the buffer serves again. A stream that still holds them keeps this one, and the next batch takes another.
    if (output.writableLength !== 0) bytes = Buffer.allocUnsafe(capacity)
  }
  const add = (line: string) => {
    // UTF-8 takes at most three bytes for each UTF-16 unit.
    const most = line.length * 3 + 1
    if (used + most > bytes.length) {
      flush()
      if (most > bytes.length) {
        output.write(`${line}\n`)
        return
      }
    }
    used += bytes.write(line, used)
    bytes[used++] = 0x0a
  }
  return { add, flush }
}
