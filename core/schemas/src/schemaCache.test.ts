import { admin, makeEnvironment } from "@coffer/test-kit/schemas"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { afterEach, describe, expect, it } from "vitest"
import { DecodedSchemasMax, GENERATION_CHANNEL, GENERATION_KEY, lookupSchema } from "./schemaCache.js"
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

describe("a write's announcement", () => {
  /** Lets the subscriber fibers run. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20))

  it("is made after every committed write that abandons cached answers", async () => {
    const env = await seeded()
    await settle()
    const heard: Array<string> = []
    const listening = env.run(
      Effect.scoped(
        Effect.gen(function* () {
          const announcements = yield* env.cache.cache.subscribe(GENERATION_CHANNEL)
          yield* Stream.runForEach(Stream.take(announcements, 1), (message) => Effect.sync(() => heard.push(message)))
        }),
      ),
    )
    await settle()
    await env.run(Schemas.saveSchema(admin, a, { name: "a, again" }))
    await listening
    expect(heard).toHaveLength(1)
  })

  it("makes an instance forget its generation, so that its next read starts a fresh one and asks the store", async () => {
    const env = await seeded()
    await env.run(lookupSchema(a))
    const generation = env.cache.entries.get(GENERATION_KEY)
    expect(generation).toBeDefined()
    await settle()
    // As another instance's write announces itself to an instance whose cache is its own.
    await env.run(env.cache.cache.publish(GENERATION_CHANNEL, "renewed"))
    await settle()
    expect(env.cache.entries.has(GENERATION_KEY)).toBe(false)
    await env.run(lookupSchema(a))
    expect(env.cache.entries.get(GENERATION_KEY)?.value).not.toBe(generation?.value)
  })
})
