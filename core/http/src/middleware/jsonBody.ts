/**
 * Reading a JSON request body inside a use case's effect. Every failure is a tagged error that the one
 * error table answers as `{ error }`, and every check runs before the body is parsed, let alone acted on:
 * not JSON → 415, not UTF-8, empty, nested deeper than 100 levels or malformed → 400 (DESIGN.md "Limits on
 * input"). The size limit is the `bodyLimit` middleware's, which every app mounts ahead of its routes.
 *
 * The depth is measured by a scan of the text rather than after `JSON.parse`, so that a hostile document
 * never gets to build a deep structure (or to exhaust the stack of code that later walks it).
 */
import { BadRequest, Encoding, type UnsupportedMediaType } from "@coffer/kernel"
import { Effect, Schema } from "effect"
import type { Context } from "hono"
import { isJsonContentType, unsupportedMediaType } from "./jsonWrites.js"

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
  if (!isJsonContentType(c.req.header("Content-Type"))) return yield* unsupportedMediaType()
  const bytes = yield* Effect.tryPromise({
    try: () => c.req.arrayBuffer(),
    catch: badRequest("Could not read the request body"),
  })
  const text = yield* Effect.try({
    try: () => Encoding.fromUtf8.decode(bytes),
    catch: badRequest("Request body is not valid UTF-8"),
  })
  if (text.trim() === "") return yield* new BadRequest({ message: "Request body must be a JSON document" })
  if (nestingExceeds(text, MAX_JSON_DEPTH)) {
    return yield* new BadRequest({ message: `JSON is nested deeper than ${MAX_JSON_DEPTH} levels` })
  }
  return yield* Effect.try({ try: (): unknown => JSON.parse(text), catch: badRequest("Malformed JSON body") })
})

/** The body decoded with `schema`; a mismatch is a 400 whose message says which field is wrong. */
export const decodeJson = <A>(
  c: Context,
  schema: Schema.Decoder<A>,
): Effect.Effect<A, BadRequest | UnsupportedMediaType> =>
  readJson(c).pipe(
    Effect.flatMap((body) =>
      Schema.decodeUnknownEffect(schema)(body).pipe(
        Effect.mapError((error) => new BadRequest({ message: `Invalid request body: ${error.message}` })),
      ),
    ),
  )
