/**
 * Reading the files `push` and `import` take: a JSON object, or a `.env` file, each read as the web app's import
 * reads it (`jsonImportMembers` and `dotenvImport` of `@coffer/secrets`), so a pulled `.env` or JSON pushed back
 * gives every value exactly. Here the first line that cannot be read stops the read, named by its number, and so
 * does a key the service's naming rules refuse, before anything is sent.
 */
import { dotenvImport, jsonImportMembers, parseSecretKey } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import { type CofferFailure, usage } from "./failure.js"
import { parseJsonText } from "./jsonText.js"

export interface Entry {
  readonly key: string
  readonly value: string
}

/** Parses `.env` text; a failure names the line. */
export const parseDotenv = (text: string): Effect.Effect<ReadonlyArray<Entry>, CofferFailure> => {
  const { entries, problems } = dotenvImport(text)
  const refused = [
    ...problems,
    ...entries.flatMap(({ key, line }) => {
      const checked = parseSecretKey(key)
      return Result.isFailure(checked) ? [{ line, reason: checked.failure.message }] : []
    }),
  ]
  if (refused.length > 0) {
    const first = refused.reduce((earliest, problem) => (problem.line < earliest.line ? problem : earliest))
    return Effect.fail(usage(`line ${first.line}: ${first.reason}`))
  }
  return Effect.succeed(entries.map(({ key, value }) => ({ key, value })))
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
