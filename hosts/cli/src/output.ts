/**
 * What commands print. Results go to stdout (waiting until the stream took them, so a large export piped to
 * another program is complete before the process ends); notes, warnings and errors go to stderr, one line each.
 * A reader that stops early (`| head`) ends the run quietly, never with a stack trace.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { type CofferFailure, usage } from "./failure.js"

/**
 * Stdout was closed by its reader (`coffer secrets pull | head -c 100`): the rest is not wanted. The run ends
 * quietly with 141, the code of a program ended by SIGPIPE, as `cat` or `grep` would (Node ignores SIGPIPE).
 */
export class OutputClosed extends Data.TaggedError("OutputClosed") {}

/** The exit code a run ends with when its output was closed. */
export const OUTPUT_CLOSED_CODE = 128 + 13

const CLOSED = new Set(["EPIPE", "ERR_STREAM_DESTROYED", "ERR_STREAM_WRITE_AFTER_END"])

const isClosed = (error: Error) => CLOSED.has((error as NodeJS.ErrnoException).code ?? "")

let guarded = false

/**
 * Keeps a closed stdout or stderr from crashing the process: without an `error` listener a stream re-throws
 * EPIPE as an uncaught exception with its stack. The writes below learn of the failure from their callbacks.
 */
export const guardOutput = () => {
  if (guarded) return
  guarded = true
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {})
}

const writeTo = (stream: NodeJS.WriteStream, text: string) =>
  Effect.callback<void, OutputClosed | CofferFailure>((resume) => {
    guardOutput()
    if (text.length === 0) return resume(Effect.void)
    if (stream.destroyed || stream.writableEnded) return resume(Effect.fail(new OutputClosed()))
    stream.write(text, (error) => {
      if (error === null || error === undefined) return resume(Effect.void)
      resume(Effect.fail(isClosed(error) ? new OutputClosed() : usage(`cannot write the output: ${error.message}`)))
    })
  })

/** Writes `text` to stdout as it is. */
export const write = (text: string) => writeTo(process.stdout, text)

/** Writes one line to stdout. */
export const line = (text: string) => write(`${text}\n`)

/** Writes one `coffer: …` line to stderr; a closed stderr leaves nobody to tell, so the run goes on. */
export const note = (text: string) => Effect.ignore(writeTo(process.stderr, `coffer: ${text}\n`))

/** Writes `value` as indented JSON, for `--json`. */
export const json = (value: unknown) => line(JSON.stringify(value, null, 2))

/** Left-aligned columns for listings, separated by two spaces. */
export const table = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths: Array<number> = []
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length)
    })
  }
  return rows
    .map((row) =>
      row
        .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n")
}
