/**
 * What commands print. Results go to stdout (waiting until the stream took them, so a large export piped to
 * another program is complete before the process ends); notes, warnings and errors go to stderr, one line each.
 */
import * as Effect from "effect/Effect"

const writeTo = (stream: NodeJS.WriteStream, text: string) =>
  Effect.callback<void>((resume) => {
    if (text.length === 0) return resume(Effect.void)
    stream.write(text, () => resume(Effect.void))
  })

/** Writes `text` to stdout as it is. */
export const write = (text: string) => writeTo(process.stdout, text)

/** Writes one line to stdout. */
export const line = (text: string) => write(`${text}\n`)

/** Writes one `coffer: …` line to stderr. */
export const note = (text: string) => writeTo(process.stderr, `coffer: ${text}\n`)

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
