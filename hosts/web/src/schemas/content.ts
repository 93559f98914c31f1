/**
 * Checking a schema's content in the editor before it is saved (issue 13 §4 "Content"): the text must be JSON,
 * a plain object, and its `@extends` a string or an array of strings, each reference well formed and written once,
 * at most 32 of them, and the body a save sends within the service's bounds on any JSON body (depth and size). The
 * messages are the API's own (`extendsRef.ts`, `content.ts`, `limits.ts` in the core;
 * `content.test.ts` checks they agree), so the editor says before saving what a save would answer. Whether a
 * reference resolves (the platform, the version or a range match exist, no cycle) only the service can say.
 */
import { jsonHazard } from "@coffer/http/jsonHazards"
import { jsonErrorOffset, positionAt } from "./jsonPosition.js"
import { platformNameProblem } from "./platformName.js"
import { quote, versionProblem } from "./versions.js"

export const EXTENDS_KEY = "@extends"
export const MAX_EXTENDS = 32
/** The service's bounds on any JSON body (`jsonBody.ts`, `bodyLimit.ts`), which the save's `{ content }` is. */
export const MAX_JSON_DEPTH = 100
export const MAX_BODY_BYTES = 1024 * 1024

/** How deep arrays and objects nest in `value`, counting `value` itself as 1 when it is one. */
const depthOf = (value: unknown): number => {
  if (value === null || typeof value !== "object") return 0
  let deepest = 0
  for (const item of Object.values(value)) deepest = Math.max(deepest, depthOf(item))
  return deepest + 1
}

const RANGE_OPERATORS = [">=", "^", "~"] as const

/** The API's message for a malformed reference, or `undefined` when it is well formed. */
export const referenceError = (raw: string): string | undefined => {
  const invalid = (reason: string) => `Invalid @extends reference ${quote(raw)}: ${reason}`
  if (raw.length === 0) return invalid("it must not be empty")
  const slash = raw.indexOf("/")
  const platform = slash === -1 ? raw : raw.slice(0, slash)
  if (platform.length === 0) return invalid("the platform name is missing before '/'")
  const nameProblem = platformNameProblem(platform)
  if (nameProblem !== undefined) {
    return invalid(
      slash === -1
        ? `it is no platform name (${nameProblem}); a version spec follows a '/', as in base/^1.2.0`
        : `${quote(platform)} before '/' is no platform name (${nameProblem})`,
    )
  }
  if (slash === -1) return undefined
  const spec = raw.slice(slash + 1)
  if (spec.length === 0) return invalid("the version spec after '/' is empty; write the platform alone for latest")
  if (spec.includes("/")) return invalid("it must be <platform> or <platform>/<spec>, with a single '/'")
  if (spec === "latest") return undefined
  const operator = RANGE_OPERATORS.find((candidate) => spec.startsWith(candidate))
  const problem = versionProblem(operator === undefined ? spec : spec.slice(operator.length))
  if (problem === undefined) return undefined
  return invalid(
    operator === undefined
      ? `the spec must be an exact version, latest, ^<version>, ~<version> or >=<version>; ${problem}`
      : `the ${operator} range needs a full version; ${problem}`,
  )
}

export type ContentCheck =
  | { readonly ok: true; readonly content: Record<string, unknown>; readonly references: ReadonlyArray<string> }
  | {
      readonly ok: false
      readonly message: string
      /** 1-based position of a JSON syntax error, when the browser reports one. */
      readonly line?: number
      readonly column?: number
    }

const describe = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`

/** The editor's text checked as the API would check it, short of resolving references. */
export const checkContent = (text: string): ContentCheck => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    const offset = jsonErrorOffset(text)
    const at = offset === undefined ? undefined : positionAt(text, offset)
    const raw = error instanceof Error ? error.message : String(error)
    // The browser's own place once ours leads the sentence: Chromium's "in JSON at position 8 (line 1 column 9)",
    // Firefox's "at line 1 column 9 of the JSON data".
    const message =
      at === undefined
        ? raw
        : raw
            .replace(/\s+(?:in JSON\s+)?at position \d+(?:\s+\(line \d+ column \d+\))?$/, "")
            .replace(/\s+at line \d+ column \d+ of the JSON data$/, "")
    return {
      ok: false,
      message: `Not valid JSON${at === undefined ? "" : ` at line ${at.line}, column ${at.column}`}: ${message}`,
      ...at,
    }
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, message: `Invalid schema content: content must be a plain JSON object, got ${describe(value)}` }
  }
  // What the parse changed without a word (a key given twice, an integer beyond 2^53), as the service refuses it:
  // the save sends the parsed value, and Format writes it back.
  const hazard = jsonHazard(text, "The content")
  if (hazard !== undefined) return { ok: false, message: hazard }
  const content = value as Record<string, unknown>
  // The save sends `{ "content": … }`: one level and a few bytes more than the text typed. Parsed JSON is at most
  // as deep as its text allows, so measuring the value cannot overflow where `JSON.parse` did not.
  if (depthOf(content) + 1 > MAX_JSON_DEPTH) {
    return { ok: false, message: `JSON is nested deeper than ${MAX_JSON_DEPTH} levels` }
  }
  const bytes = new TextEncoder().encode(JSON.stringify({ content })).length
  if (bytes > MAX_BODY_BYTES) {
    return {
      ok: false,
      message: `Request body is larger than 1 MiB (${bytes.toLocaleString("en-US")} bytes to send)`,
    }
  }
  if (!Object.hasOwn(content, EXTENDS_KEY)) return { ok: true, content, references: [] }
  const declared = content[EXTENDS_KEY]
  const references =
    typeof declared === "string"
      ? [declared]
      : Array.isArray(declared) && declared.every((item) => typeof item === "string")
        ? (declared as ReadonlyArray<string>)
        : undefined
  if (references === undefined) {
    return { ok: false, message: `Invalid schema content: ${EXTENDS_KEY} must be a string or an array of strings` }
  }
  // The service's order: the bounds on the list first, then each reference in the order written.
  if (references.length > MAX_EXTENDS) {
    return {
      ok: false,
      message: `Too many @extends references: ${references.length.toLocaleString("en-US")}, at most ${MAX_EXTENDS} are allowed`,
    }
  }
  const seen = new Set<string>()
  for (const reference of references) {
    if (seen.has(reference)) {
      return {
        ok: false,
        message: `@extends lists ${quote(reference)} twice: each reference may appear once (at most ${MAX_EXTENDS}, none twice)`,
      }
    }
    seen.add(reference)
  }
  for (const reference of references) {
    const error = referenceError(reference)
    if (error !== undefined) return { ok: false, message: error }
  }
  return { ok: true, content, references }
}

/** The reference forms, for the editor's help (seed 000 §2). */
export const REFERENCE_FORMS: ReadonlyArray<{ readonly form: string; readonly meaning: string }> = [
  { form: "ios/1.2.0", meaning: "exactly that version" },
  {
    form: "ios/latest or ios",
    meaning: "the latest version (the highest release; a pre-release only if there is none)",
  },
  { form: "ios/^1.2.0", meaning: "the highest 1.x.y at or above 1.2.0" },
  { form: "ios/~1.2.0", meaning: "the highest 1.2.y at or above 1.2.0" },
  { form: "ios/>=1.2.0", meaning: "the highest version at or above 1.2.0" },
]
