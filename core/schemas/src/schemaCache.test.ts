import { admin, makeEnvironment } from "@coffer/test-kit/schemas"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { DecodedSchemasMax, lookupSchema } from "./schemaCache.js"
import * as Platforms from "./usecases/platforms.js"
import * as Schemas from "./usecases/schemas.js"

const environments: Array<ReturnType<typeof makeEnvironment>> = []
afterEach(async () => {
  await Promise.all(environments.splice(0).map((env) => env.dispose()))
})

/** Two saved schemas, a/1.0.0 and b/1.0.0. */
const seeded = async () => {
  const env = makeEnvironment()
  environments.push(env)
  await env.run(
    Effect.gen(function* () {
      for (const name of ["a", "b"]) {
        yield* Platforms.putPlatform(admin, name, { name, versions: ["1.0.0"] })
        yield* Schemas.saveSchema(admin, { platform: name, version: "1.0.0" }, { name })
      }
    }),
  )
  return env
}

const a = { platform: "a", version: "1.0.0" }
const b = { platform: "b", version: "1.0.0" }

/** Reads a twice (the second is decoded and kept), then b twice, then a again: the kept a, or a fresh one. */
const keptAcross = (env: ReturnType<typeof makeEnvironment>, max?: number) =>
  env.run(
    Effect.gen(function* () {
      yield* lookupSchema(a)
      const first = yield* lookupSchema(a)
      yield* lookupSchema(b)
      yield* lookupSchema(b)
      const again = yield* lookupSchema(a)
      expect(again).toEqual(first)
      return again === first
    }).pipe(max === undefined ? (effect) => effect : Effect.provideService(DecodedSchemasMax, max)),
  )

describe("decoded schema answers", () => {
  it("are kept per process up to their bound, the one kept longest leaving first", async () => {
    expect(await keptAcross(await seeded())).toBe(true)
    expect(await keptAcross(await seeded(), 1)).toBe(false)
    expect(await keptAcross(await seeded(), 2)).toBe(true)
  })
})
