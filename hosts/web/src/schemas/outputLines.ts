/**
 * The Output tab (issue 13 §4): the resolved output printed as JSON, one line per row, each value's row marked
 * with the schema it came from (the `provenance` of `GET …/ancestors`). Objects open and close on rows of their
 * own and carry no mark (their members do, one by one); an empty object and an array (which replaces as a whole
 * in the merge) are one value, marked on their first row.
 */

export interface ValueSource {
  readonly path: ReadonlyArray<string>
  readonly source: string
}

export interface OutputLine {
  /** Nesting depth, for the indent. */
  readonly depth: number
  /** The text of the row without its indent, as `JSON.stringify(…, 2)` prints it. */
  readonly text: string
  /** `platform/version` of the schema that supplied the value starting on this row. */
  readonly source: string | undefined
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

const pathKey = (path: ReadonlyArray<string>) => JSON.stringify(path)

/** The output's rows, in its key order, with sources where provenance names one. */
export const outputLines = (output: unknown, provenance: ReadonlyArray<ValueSource>): Array<OutputLine> => {
  const sources = new Map(provenance.map((value) => [pathKey(value.path), value.source]))
  const lines: Array<OutputLine> = []
  // An explicit stack of what is left to print, so that no depth of nesting can overflow the call stack.
  type Task =
    | { readonly kind: "value"; readonly path: ReadonlyArray<string>; readonly value: unknown; readonly comma: boolean }
    | { readonly kind: "close"; readonly depth: number; readonly comma: boolean }
  const stack: Array<Task> = [{ kind: "value", path: [], value: output, comma: false }]
  for (let task = stack.pop(); task !== undefined; task = stack.pop()) {
    if (task.kind === "close") {
      lines.push({ depth: task.depth, text: `}${task.comma ? "," : ""}`, source: undefined })
      continue
    }
    const { path, value, comma } = task
    const depth = path.length
    const label = depth === 0 ? "" : `${JSON.stringify(path.at(-1))}: `
    const source = sources.get(pathKey(path))
    if (isObject(value) && Object.keys(value).length > 0) {
      lines.push({ depth, text: `${label}{`, source: undefined })
      stack.push({ kind: "close", depth, comma })
      const keys = Object.keys(value)
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index]!
        stack.push({ kind: "value", path: [...path, key], value: value[key], comma: index < keys.length - 1 })
      }
      continue
    }
    const printed = (JSON.stringify(value, null, 2) ?? "null").split("\n")
    printed.forEach((row, index) => {
      const last = index === printed.length - 1
      // Continuation rows of an array keep JSON.stringify's own indent, relative to this value's depth.
      const indent = index === 0 ? 0 : /^ */.exec(row)![0].length / 2
      lines.push({
        depth: depth + indent,
        text: `${index === 0 ? label : ""}${row.trimStart()}${last && comma ? "," : ""}`,
        source: index === 0 ? source : undefined,
      })
    })
  }
  return lines
}
