/**
 * The schemas service's token-readable endpoints (seed 000 §4, rule 6) and version selection on the client:
 * `PLATFORM/VERSION` is read as an `@extends` reference (exact, `latest`, `^`, `~`, `>=`) and resolved against
 * `GET /api/{platform}/versions` with the core's own `parseReference` and `selectVersion`, so the command picks
 * exactly the version a schema extending it would.
 */
import { parseReference, selectVersion } from "@coffer/schemas"
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

/**
 * A range written short, as semver reads it, in the full form `@extends` takes: `^2` and `>=2` gain `.0.0`,
 * `~2.1` gains `.0`, and `~2` (any 2.x) is `^2.0.0`. Anything else is left as written.
 */
export const completeRange = (reference: string): string =>
  reference.replace(/\/(\^|~|>=)(\d+)(?:\.(\d+))?$/, (_, operator: string, major: string, minor?: string) =>
    operator === "~" && minor === undefined ? `/^${major}.0.0` : `/${operator}${major}.${minor ?? "0"}.0`,
  )

/** The schema `reference` selects: the version picked and the resolved schema. */
export const resolveSchema = (endpoint: Endpoint, reference: string) =>
  Effect.gen(function* () {
    const parsed = parseReference(completeRange(reference))
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
