/**
 * Reading a JSON request body inside a use case's effect. Every failure is a tagged error that the one
 * error table answers as `{ error }`, and every check runs before the body is parsed, let alone acted on:
 * not JSON → 415, not UTF-8, empty, nested deeper than 100 levels or malformed → 400 (DESIGN.md "Limits on
 * input"). The size limit is the `bodyLimit` middleware's, which every app mounts ahead of its routes.
 *
 * The depth is measured by a scan of the text rather than after `JSON.parse`, so that a hostile document
 * never gets to build a deep structure (or to exhaust the stack of code that later walks it). What the parse
 * would change without a word (a key given twice, an integer beyond 2^53) is a 400 too (`../request/jsonHazards.ts`).
 */
import { BadRequest, Encoding, type UnsupportedMediaType } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import type { Context } from "hono"
import { bodyBytes } from "../request/body.js"
import { header } from "../request/header.js"
import { jsonHazard } from "../request/jsonHazards.js"
import { UNREADABLE_BODY } from "./bodyLimit.js"
import { isJsonContentType, unreadableJson, unsupportedMediaType } from "./jsonWrites.js"

export const MAX_JSON_DEPTH = 100

/** Whether arrays and objects in `text` nest deeper than `max`; brackets inside strings do not count. */
export const nestingExceeds = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i)
    if (inString) {
      if (char === 0x5c /* \ */) i++
      else if (char === 0x22 /* " */) inString = false
    } else if (char === 0x22) inString = true
    else if (char === 0x5b /* [ */ || char === 0x7b /* { */) {
      depth++
      if (depth > max) return true
    } else if (char === 0x5d /* ] */ || char === 0x7d /* } */) depth--
  }
  return false
}

const badRequest = (message: string) => () => new BadRequest({ message })

/** The parsed body, as `unknown`: decode it with a schema (`decodeJson`) before trusting any of it. */
export const readJson = Effect.fnUntraced(function* (
  c: Context,
): Effect.fn.Return<unknown, BadRequest | UnsupportedMediaType> {
  if (!isJsonContentType(header(c, "Content-Type"))) return yield* unsupportedMediaType()
  const unreadable = unreadableJson(c)
  if (unreadable !== undefined) return yield* unreadable
  const bytes = yield* Effect.tryPromise({
    try: () => bodyBytes(c),
    catch: badRequest(UNREADABLE_BODY),
  })
  const text = yield* Effect.try({
    try: () => Encoding.fromUtf8.decode(bytes),
    catch: badRequest("Request body is not valid UTF-8"),
  })
  if (text.trim() === "") return yield* new BadRequest({ message: "Request body must be a JSON document" })
  if (nestingExceeds(text, MAX_JSON_DEPTH)) {
    return yield* new BadRequest({ message: `JSON is nested deeper than ${MAX_JSON_DEPTH} levels` })
  }
  const body = yield* Effect.try({ try: (): unknown => JSON.parse(text), catch: badRequest("Malformed JSON body") })
  const hazard = jsonHazard(text)
  if (hazard !== undefined) return yield* new BadRequest({ message: hazard })
  return body
})

/** The formatter behind `decodeJson`: each issue with its path, a missing key said as such. */
const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) => (issue._tag === "MissingKey" ? "is missing" : SchemaIssue.defaultLeafHook(issue)),
})

type PathSegment = PropertyKey | { readonly key: PropertyKey }

const pathText = (path: ReadonlyArray<PathSegment>) =>
  path
    .map((segment) => (typeof segment === "object" ? segment.key : segment))
    .map((key, index) => (typeof key === "number" ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`))
    .join("")

/** One line naming the first problem: `Missing "version" in the request body`, `Invalid "kind" …: …`. */
export const bodyProblem = (issue: SchemaIssue.Issue): string => {
  const [first] = formatIssues(issue).issues
  if (first === undefined) return "Invalid request body"
  const path = first.path ?? []
  if (path.length === 0) {
    return first.message === "Expected object" || first.message.startsWith("Expected {")
      ? "Request body must be a JSON object"
      : `Invalid request body: ${first.message}`
  }
  const field = JSON.stringify(pathText(path))
  return first.message === "is missing"
    ? `Missing ${field} in the request body`
    : `Invalid ${field} in the request body: ${first.message}`
}

const decodeWith =
  <A>(schema: Schema.Decoder<A>) =>
  (body: unknown) =>
    Schema.decodeUnknownEffect(schema)(body).pipe(
      Effect.mapError((error) => new BadRequest({ message: bodyProblem(error.issue) })),
    )

/**
 * The body decoded with `schema`, for both services: a mismatch is a 400 whose message names the field
 * (`bodyProblem`). Keys the schema does not name are ignored.
 */
export const decodeJson = <A>(
  c: Context,
  schema: Schema.Decoder<A>,
): Effect.Effect<A, BadRequest | UnsupportedMediaType> => readJson(c).pipe(Effect.flatMap(decodeWith(schema)))

/**
 * A JSON body that may be left out entirely (`POST /invites`, `POST /api-keys/:id/rotate`): no body at all reads
 * as `{}`; a body that is there must be JSON and match the schema like any other.
 */
export const optionalJson = <A>(
  c: Context,
  schema: Schema.Decoder<A>,
): Effect.Effect<A, BadRequest | UnsupportedMediaType> => {
  const length = header(c, "Content-Length")
  const framed = header(c, "Transfer-Encoding") !== undefined || (length !== undefined && length !== "0")
  if (framed || header(c, "Content-Type") !== undefined) return decodeJson(c, schema)
  return decodeWith(schema)({})
}
