/**
 * The schemas service's token-readable endpoints (seed 000 §4, rule 6) and version selection on the client:
 * `PLATFORM/VERSION` is read as an `@extends` reference (exact, `latest`, `^`, `~`, `>=`) and resolved against
 * `GET /api/{platform}/versions` with the core's own `parseReference` and `selectVersion`, so the command picks
 * exactly the version a schema extending it would.
 */
import {
  type ExtendsRef,
  type InvalidReference,
  parseReference,
  type RangeOperator,
  selectVersion,
} from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { notFound, usage } from "./failure.js"
import { decodeAnswer, type Endpoint, request, segment } from "./http.js"

const Platform = Schema.Struct({ name: Schema.String, versions: Schema.Array(Schema.String) })
export type Platform = typeof Platform.Type

const SchemaBody = Schema.Struct({
  content: Schema.Json,
  dependencies: Schema.Array(Schema.String),
  output: Schema.Json,
})

export const platforms = (endpoint: Endpoint) =>
  request(endpoint, "GET", "/api/schemas").pipe(Effect.flatMap(decodeAnswer(Schema.Array(Platform))))

export const versions = (endpoint: Endpoint, platform: string) =>
  request(endpoint, "GET", `/api/${segment(platform)}/versions`).pipe(
    Effect.flatMap(decodeAnswer(Schema.Array(Schema.String))),
  )

const SHORT_RANGE = /^(.*)\/(\^|~|>=)(\d+(?:\.\d+)?)$/

/**
 * `PLATFORM/VERSION` as `@extends` reads it, and also a range written short (`^2`, `~2.1`, `>=3`), which
 * `@extends` refuses. A short range is checked in its full form for everything but the version, then handed to
 * selection as written, so that semver itself reads the missing parts: `^0` and `~0` are any 0.x, `^0.0` any
 * 0.0.x, `~2` any 2.x. Filling in zeros cannot do that: `^0.0.0` is 0.0.0 alone.
 */
export const readReference = (reference: string): Result.Result<ExtendsRef, InvalidReference> => {
  const short = SHORT_RANGE.exec(reference)
  if (short === null) return parseReference(reference)
  const [, platform = "", operator = "", partial = ""] = short
  const full = partial.includes(".") ? `${partial}.0` : `${partial}.0.0`
  return Result.map(parseReference(`${platform}/${operator}${full}`), (parsed) => ({
    ...parsed,
    raw: reference,
    spec: { _tag: "Range", operator: operator as RangeOperator, version: partial },
  }))
}

/** The schema `reference` selects: the version picked and the resolved schema. */
export const resolveSchema = (endpoint: Endpoint, reference: string) =>
  Effect.gen(function* () {
    // Said before the parser's reason, which names the reference first: an empty one would be said as `coffer: : …`.
    if (reference.trim() === "") {
      return yield* usage(
        "a PLATFORM/VERSION given is empty: give one, as app/^2, app/latest, or app alone for its latest",
      )
    }
    const parsed = readReference(reference)
    if (Result.isFailure(parsed)) return yield* usage(`${reference}: ${parsed.failure.reason}`)
    const ref = parsed.success
    const version =
      ref.spec._tag === "Exact"
        ? ref.spec.version
        : yield* Effect.flatMap(versions(endpoint, ref.platform), (available) => {
            const selected = selectVersion(ref, available)
            return Result.isSuccess(selected)
              ? Effect.succeed(selected.success)
              : Effect.fail(notFound(`${reference}: ${selected.failure.reason}`))
          })
    const schema = yield* request(endpoint, "GET", `/api/${segment(ref.platform)}/${segment(version)}`).pipe(
      Effect.flatMap(decodeAnswer(SchemaBody)),
    )
    return { platform: ref.platform, version, output: schema.output }
  })
