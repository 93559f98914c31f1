/**
 * Reading the files `push` and `import` take: a JSON object, or a `.env` file. The `.env` reader is
 * the inverse of the service's own export (seed 001 §4 rules 1 to 3) and reads the way a POSIX shell `source`s:
 *
 * - `KEY=value`, with an optional `export ` in front; blank lines and lines starting with `#` are skipped;
 * - a file of CRLF line ends is read as LF;
 * - a value is one shell word: it ends at the first blank outside quotes, and ` #` starts a comment after it;
 * - quoted and bare parts side by side make one value (`'it'\''s'`, as a shell and `pull --format shell` write a
 *   single quote inside single quotes);
 * - `'…'` is literal, line breaks included;
 * - `"…"` may span lines; a backslash escapes `\`, `"`, `$` and a backtick (and joins lines before a line
 *   break); before anything else it stays a backslash, as in a shell;
 * - outside quotes, a backslash takes a quote, a backslash, a blank, `$`, a backtick or `#` as it is (`a\ b`);
 *   before anything else it stays (`C:\Users`), where a shell would drop it;
 * - `$NAME` is kept as written, never expanded: a file's values are what it says.
 *
 * So a pulled `.env` pushed back gives every value exactly. Keys are checked by the service, not here.
 */
import { jsonImportMembers, parseSecretKey } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import { type CofferFailure, usage } from "./failure.js"
import { parseJsonText } from "./jsonText.js"

export interface Entry {
  readonly key: string
  readonly value: string
}

const KEY = /^(?:export[ \t]+)?([A-Za-z0-9_.-]+)[ \t]*=/
const ESCAPABLE = new Set(["\\", '"', "$", "`"])
/** What a backslash outside quotes takes as it is: a quote, itself, a blank, `$`, a backtick, `#`. */
const BARE_ESCAPABLE = new Set(["\\", '"', "'", " ", "\t", "$", "`", "#"])

/**
 * A file whose every line ends in CRLF (saved on Windows, or checked out with `core.autocrlf`) read with LF line
 * ends, so a quoted value spanning lines gets no carriage return the export never wrote. The service's export ends
 * every line with a bare LF, so a file holding one keeps its carriage returns: they are in a value.
 */
const withLineFeeds = (text: string) =>
  text.includes("\n") && !/(^|[^\r])\n/.test(text) ? text.replaceAll("\r\n", "\n") : text

/** Parses `.env` text; a failure names the line. */
export const parseDotenv = (text: string): Effect.Effect<ReadonlyArray<Entry>, CofferFailure> => {
  const entries: Array<Entry> = []
  let at = 0
  let lineNumber = 1
  const fail = (message: string) => Effect.fail(usage(`line ${lineNumber}: ${message}`))
  const source = withLineFeeds(text.replace(/^\uFEFF/, ""))
  while (at < source.length) {
    const end = source.indexOf("\n", at)
    const rawLine = source.slice(at, end === -1 ? source.length : end).replace(/\r$/, "")
    const trimmed = rawLine.trimStart()
    if (trimmed.length === 0 || trimmed.startsWith("#")) {
      at = end === -1 ? source.length : end + 1
      lineNumber += 1
      continue
    }
    const match = KEY.exec(trimmed)
    if (match === null) {
      // A key the service would refuse (`CLÉ=x`) is named with the service's reason, as `secrets set` names it.
      const named = trimmed
        .slice(0, Math.max(trimmed.indexOf("="), 0))
        .replace(/^export[ \t]+/, "")
        .trim()
      const refusal = named === "" ? undefined : parseSecretKey(named)
      return fail(refusal !== undefined && Result.isFailure(refusal) ? refusal.failure.message : "expected KEY=value")
    }
    const key = match[1] ?? ""
    let position = at + (rawLine.length - trimmed.length) + match[0].length
    // A value is one shell word: quoted and bare parts side by side (`'it'\''s'`, as `pull --format shell` writes a
    // quote), up to the first blank or line end outside quotes.
    let value = ""
    let quoted = false
    for (;;) {
      const character = source[position]
      if (character === undefined || character === " " || character === "\t" || character === "\n") break
      if (character === "\r" && (source[position + 1] === "\n" || position + 1 === source.length)) break
      if (character === "'") {
        const close = source.indexOf("'", position + 1)
        if (close === -1) return fail("a single quote is never closed")
        value += source.slice(position + 1, close)
        position = close + 1
        quoted = true
        continue
      }
      if (character === '"') {
        position += 1
        for (;;) {
          if (position >= source.length) return fail("a double quote is never closed")
          const inside = source[position] ?? ""
          if (inside === '"') break
          if (inside === "\\") {
            const next = source[position + 1] ?? ""
            if (ESCAPABLE.has(next)) {
              value += next
              position += 2
              continue
            }
            if (next === "\n") {
              position += 2
              continue
            }
          }
          value += inside
          position += 1
        }
        position += 1
        quoted = true
        continue
      }
      if (character === "\\") {
        const next = source[position + 1] ?? ""
        // Outside quotes a backslash takes the next character as it is, where a shell would; before anything else
        // (a Windows path's `C:\Users`) it stays, as the `dotenv` package keeps it.
        if (BARE_ESCAPABLE.has(next)) {
          value += next
          position += 2
          continue
        }
      }
      value += character
      position += 1
    }
    const rest = source.indexOf("\n", position)
    const tail = source.slice(position, rest === -1 ? source.length : rest).trim()
    if (tail.length > 0 && !tail.startsWith("#")) {
      // Files written for the `dotenv` package often hold `KEY = value` or an unquoted `KEY=a b`, which it accepts
      // and a shell does not: say how to write them rather than only where.
      const hint = quoted
        ? ""
        : value.length === 0
          ? ` (write KEY=value, with no space after =)`
          : ` (quote a value that holds spaces: ${key}='…')`
      return fail(`unexpected text after the value of ${key}${hint}`)
    }
    lineNumber += source.slice(at, rest === -1 ? source.length : rest).split("\n").length
    entries.push({ key, value })
    at = rest === -1 ? source.length : rest + 1
  }
  return Effect.succeed(entries)
}

/**
 * A JSON object of secrets, read as the web app's import reads it (`jsonImportMembers`): a number or
 * `true`/`false` is taken as its text as written; the first value with no text (`null`, an array, an object) stops
 * the read, naming its key.
 */
export const parseJsonObject = (text: string): Effect.Effect<ReadonlyArray<Entry>, CofferFailure> =>
  Effect.gen(function* () {
    const parsed = yield* Effect.mapError(Effect.fromResult(parseJsonText(text)), usage)
    if (!Predicate.isObject(parsed) || Array.isArray(parsed))
      return yield* usage("expected a JSON object mapping each key to its value")
    const entries: Array<Entry> = []
    for (const { key, value } of jsonImportMembers(text)) {
      if (value._tag === "Refused") return yield* usage(`the value of ${key} ${value.reason}`)
      entries.push({ key, value: value.value })
    }
    return entries
  })

/** Entries of `file`'s text: JSON when it ends in `.json` or starts with `{`, `.env` otherwise. */
export const parseSecretsFile = (file: string, text: string) => {
  const parsed = file.endsWith(".json") || text.trimStart().startsWith("{") ? parseJsonObject(text) : parseDotenv(text)
  return parsed.pipe(Effect.mapError((failure) => usage(`${file}: ${failure.message}`)))
}

/** Keys given more than once, each named once, in the order first given. */
export const repeatedKeys = (entries: ReadonlyArray<Entry>): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const repeated = new Set<string>()
  for (const { key } of entries) (seen.has(key) ? repeated : seen).add(key)
  return [...repeated]
}

/** Later lines win, as when a shell sources the file. */
export const toMap = (entries: ReadonlyArray<Entry>): ReadonlyMap<string, string> =>
  new Map(entries.map((entry) => [entry.key, entry.value]))
