/**
 * Reading a pasted or dropped `.env` or JSON file for the import preview (issue 12 §4), as the command line's `push`
 * and `import` read it: `.env` by `dotenvImport` and JSON by `jsonImportMembers`, both of `@coffer/secrets`.
 * `envFile.test.ts` checks that every export the server can write reads back to the same entries.
 *
 * A JSON number or `true`/`false` is imported as its text as written, and the preview says which were; `null`, an
 * array or an object is refused, named by its key. Keys are checked here with the service's own sentences.
 */
import { dotenvImport, jsonImportMembers } from "@coffer/secrets"
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

type Raw = ParsedEntry

const parseDotenv = (text: string): { raws: ReadonlyArray<Raw>; invalid: ReadonlyArray<Problem> } => {
  const { entries, problems } = dotenvImport(text)
  return { raws: entries, invalid: problems }
}

const parseJson = (text: string): { raws: ReadonlyArray<Raw>; invalid: ReadonlyArray<Problem> } | string => {
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
