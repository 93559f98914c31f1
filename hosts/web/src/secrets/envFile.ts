/**
 * Reading a pasted or dropped `.env` or JSON file for the import preview (issue 12 §4). The `.env` dialect is
 * the one the service exports (seed 001 §4 rules 1–3: bare, single-quoted literal, double-quoted with `\\`,
 * `\"`, `\$` and `` \` `` escaped) plus what other tools write: `export ` prefixes, comments, `\n` in double
 * quotes. `envFile.test.ts` checks that every export the server can write reads back to the same entries.
 *
 * A JSON file is one object, read as the command line reads it (`jsonImportMembers` of `@coffer/secrets`): a
 * number or `true`/`false` is imported as its text as written, and the preview says which were; `null`, an array
 * or an object is refused, named by its key.
 */
import { jsonImportMembers } from "@coffer/secrets"
import { nameProblem } from "./names.js"

export interface ParsedEntry {
  readonly key: string
  readonly value: string
  /** 1-based line (for `.env`) or position (for JSON) where it was found. */
  readonly line: number
  /** A JSON number or `true`/`false`, whose text as written is the value. */
  readonly converted?: "number" | "boolean" | undefined
}

export interface Problem {
  readonly line: number
  readonly key: string | undefined
  readonly reason: string
}

export interface Parsed {
  readonly format: "dotenv" | "json"
  /** Valid entries, one per key: a key given twice keeps its last value. */
  readonly entries: ReadonlyArray<ParsedEntry>
  /** Keys given more than once. */
  readonly duplicates: ReadonlyArray<string>
  /** Lines or entries that cannot be imported, with why. */
  readonly invalid: ReadonlyArray<Problem>
}

/** Seed 001 §2: letters, digits, `_`, `-`, `.`; at most 256 characters. */
const KEY = /^[A-Za-z0-9_.-]{1,256}$/

const keyProblem = (key: string): string | undefined =>
  key === ""
    ? "the key is empty"
    : key.length > 256
      ? "the key is longer than 256 characters"
      : KEY.test(key)
        ? nameProblem("secretKey", key)
        : "a key may hold only letters, digits, _, - and ."

const DOUBLE_QUOTED_ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\",
  '"': '"',
  $: "$",
  "`": "`",
  n: "\n",
}

type Raw = ParsedEntry

const parseDotenv = (text: string): { raws: Array<Raw>; invalid: Array<Problem> } => {
  const raws: Array<Raw> = []
  const invalid: Array<Problem> = []
  const lines = text.replace(/\r\n?/g, "\n").split("\n")
  for (let index = 0; index < lines.length; index++) {
    const lineNumber = index + 1
    const line = lines[index]!
    const trimmed = line.trim()
    if (trimmed === "" || trimmed.startsWith("#")) continue
    // Only the start: a quoted value that runs onto the next line keeps whatever ends its first line.
    const assignment = line.trimStart().replace(/^export\s+/, "")
    const equals = assignment.indexOf("=")
    if (equals < 0) {
      invalid.push({ line: lineNumber, key: undefined, reason: "not a KEY=value line" })
      continue
    }
    const key = assignment.slice(0, equals).trim()
    const afterEquals = assignment.slice(equals + 1)
    let rest = afterEquals.replace(/^[ \t]+/, "")
    const quote = rest[0]
    if (quote === "'" || quote === '"') {
      // A quoted value may run over several lines: gather until the closing quote.
      let value = ""
      let position = 1
      let closed = false
      for (;;) {
        while (position < rest.length) {
          const char = rest[position]!
          if (quote === '"' && char === "\\" && position + 1 < rest.length) {
            const next = rest[position + 1]!
            value += DOUBLE_QUOTED_ESCAPES[next] ?? `\\${next}`
            position += 2
            continue
          }
          if (char === quote) {
            closed = true
            break
          }
          value += char
          position++
        }
        if (closed || index + 1 >= lines.length) break
        index++
        value += "\n"
        rest = `${rest.slice(0, position)}\n${lines[index]!}`
        position++
      }
      if (!closed) {
        invalid.push({
          line: lineNumber,
          key,
          reason: `the ${quote === "'" ? "single" : "double"} quote is never closed`,
        })
        continue
      }
      const after = rest.slice(position + 1).trim()
      if (after !== "" && !after.startsWith("#")) {
        invalid.push({ line: lineNumber, key, reason: "unexpected text after the closing quote" })
        continue
      }
      raws.push({ key, value, line: lineNumber })
    } else {
      // A `#` after a blank starts a comment, the blank after `=` included: `API_TOKEN= # fill me in` (as a
      // .env.example writes it) is an empty value, as `coffer push` and a shell read it, not "# fill me in".
      const comment = afterEquals.search(/\s#/)
      raws.push({ key, value: (comment < 0 ? afterEquals : afterEquals.slice(0, comment)).trim(), line: lineNumber })
    }
  }
  return { raws, invalid }
}

const parseJson = (text: string): { raws: Array<Raw>; invalid: Array<Problem> } | string => {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    return `This is not valid JSON: ${error instanceof Error ? error.message : String(error)}`
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return "The JSON must be one object mapping each key to its value."
  }
  const raws: Array<Raw> = []
  const invalid: Array<Problem> = []
  jsonImportMembers(text).forEach(({ key, value }, index) => {
    const line = index + 1
    if (value._tag === "Refused") invalid.push({ line, key, reason: `the value ${value.reason}` })
    else raws.push({ key, value: value.value, line, converted: value.converted })
  })
  return { raws, invalid }
}

/** Reads `text` as JSON when it starts with `{`, else as `.env`; a string answer is why nothing could be read. */
export const parseSecretsFile = (text: string): Parsed | string => {
  const format = text.trimStart().startsWith("{") ? "json" : "dotenv"
  const read = format === "json" ? parseJson(text) : parseDotenv(text)
  if (typeof read === "string") return read
  const invalid = [...read.invalid]
  const byKey = new Map<string, ParsedEntry>()
  const seen = new Set<string>()
  const duplicates = new Set<string>()
  for (const raw of read.raws) {
    const problem = keyProblem(raw.key)
    if (problem !== undefined) {
      invalid.push({ line: raw.line, key: raw.key, reason: problem })
      continue
    }
    if (seen.has(raw.key)) duplicates.add(raw.key)
    seen.add(raw.key)
    byKey.delete(raw.key)
    byKey.set(raw.key, raw)
  }
  invalid.sort((a, b) => a.line - b.line)
  return { format, entries: [...byKey.values()], duplicates: [...duplicates], invalid }
}

export type Change = "new" | "changed" | "unchanged"

/** How each entry would change the environment whose current values are `current`. */
export const classify = (
  entries: ReadonlyArray<ParsedEntry>,
  current: Readonly<Record<string, string>>,
): ReadonlyArray<ParsedEntry & { readonly change: Change }> =>
  entries.map((entry) => ({
    ...entry,
    change: !Object.hasOwn(current, entry.key) ? "new" : current[entry.key] === entry.value ? "unchanged" : "changed",
  }))
