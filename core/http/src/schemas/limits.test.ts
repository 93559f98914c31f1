/**
 * The resolution limits over HTTP (DESIGN.md "Schemas resolution limits", `domain/limits.ts`): each refused with
 * 400 and a message naming the limit, and nothing changed. Long chains are seeded through the store (building them
 * through the API is slow and not what is tested); every save and read goes through HTTP. A chain 1,000 deep
 * saves at its base, and a chain 3,000 deep answers 400, never 500.
 */
import { SchemaStore } from "@coffer/schemas"
import { createPlatforms, saveSchema, useSchemasServices } from "@coffer/test-kit/schemasService"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"

const service = useSchemasServices()

/** Platforms `c1…c<length>`, version 1.0.0 each, `c<i>` extending `c<i-1>/1.0.0` and `c1` extending `base/1.0.0`. */
const seedChain = (runtime: ReturnType<typeof service>["runtime"], length: number) =>
  runtime.runPromise(
    Effect.gen(function* () {
      const store = yield* SchemaStore
      yield* store.transaction(
        Effect.gen(function* () {
          for (let i = 1; i <= length; i++) {
            const platform = `c${i}`
            const reference = i === 1 ? "base/1.0.0" : `c${i - 1}/1.0.0`
            yield* store.insertPlatform(platform, undefined, 0)
            yield* store.insertVersions(platform, ["1.0.0"], 0)
            yield* store.saveSchema({
              platform,
              version: "1.0.0",
              content: { "@extends": reference, [platform]: i },
              dependencies: [reference],
              output: {},
              sources: undefined,
              savedBy: "seed@example.com",
              savedAt: 0,
            })
          }
        }),
      )
    }),
  )

describe("@extends references", () => {
  it("allows 32 distinct references, refuses 33 or one written twice, naming the limit", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    const names = Array.from({ length: 33 }, (_, i) => `p${i}`)
    await createPlatforms(ada, { ...Object.fromEntries(names.map((name) => [name, ["1.0.0"]])), app: ["1.0.0"] })
    const references = names.map((name) => `${name}/1.0.0`)
    expect(
      (await ada.request("PUT", "/api/app/1.0.0", { body: { content: { "@extends": references } } })).body,
    ).toEqual({ error: "Too many @extends references: 33, at most 32 are allowed" })
    const twice = { "@extends": ["p0/1.0.0", "p1", "p0/1.0.0"] }
    expect(await ada.request("PUT", "/api/app/1.0.0", { body: { content: twice } })).toMatchObject({
      status: 400,
      body: { error: '@extends lists "p0/1.0.0" twice: each reference may appear once (at most 32, none twice)' },
    })
    expect((await ada.request("GET", "/api/app/1.0.0")).status).toBe(404)
    const saved = await saveSchema(ada, "app/1.0.0", { "@extends": references.slice(0, 32), own: true })
    expect(saved.schema.output).toEqual({ own: true })
  })
})

describe("inheritance depth", () => {
  it("saves the base of a chain 1,000 deep, re-resolving all of it, and refuses a 1,001st level", async () => {
    const { person, runtime } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { base: ["1.0.0"], top: ["1.0.0"] })
    await seedChain(runtime, 1_000)
    const saved = await saveSchema(ada, "base/1.0.0", { fromBase: 1 })
    expect(saved.reprocessed).toHaveLength(1_000)
    expect(saved.reprocessed[0]).toBe("c1/1.0.0")
    expect(saved.reprocessed.at(-1)).toBe("c1000/1.0.0")
    const deepest = (await ada.request("GET", "/api/c1000/1.0.0")).body as { output: Record<string, number> }
    expect(deepest.output).toMatchObject({ fromBase: 1, c1: 1, c500: 500, c1000: 1_000 })
    expect(await ada.request("PUT", "/api/top/1.0.0", { body: { content: { "@extends": "c1000/1.0.0" } } })).toEqual(
      expect.objectContaining({
        status: 400,
        body: {
          error: "Inheritance too deep: top/1.0.0 extends through more than 1,000 levels, at most 1,000 are allowed",
        },
      }),
    )
  })

  it("answers 400 naming the limit, never 500, when a chain 3,000 deep is saved at its base or its top", async () => {
    const { person, runtime } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { base: ["1.0.0"] })
    await seedChain(runtime, 3_000)
    const atBase = await ada.request("PUT", "/api/base/1.0.0", { body: { content: { v: 2 } } })
    expect(atBase.status).toBe(400)
    expect((atBase.body as { error: string }).error).toMatch(/^Inheritance too deep: c\d+\/1\.0\.0 extends through/)
    const atTop = await ada.request("PUT", "/api/c3000/1.0.0", { body: { content: { "@extends": "c2999/1.0.0" } } })
    expect(atTop).toMatchObject({ status: 400, body: { error: expect.stringContaining("at most 1,000 are allowed") } })
    // Nothing was written: the base still has no schema.
    expect((await ada.request("GET", "/api/base/1.0.0")).status).toBe(404)
  })
})

describe("output size", () => {
  it("refuses an output over 4 MiB, naming the schema and the limit", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    const parts = ["a", "b", "c", "d", "e"]
    await createPlatforms(ada, { ...Object.fromEntries(parts.map((name) => [name, ["1.0.0"]])), app: ["1.0.0"] })
    // Five parents of about 0.9 MB each, with keys of their own: merged, about 4.5 MB.
    for (const name of parts) {
      const content = Object.fromEntries(Array.from({ length: 900 }, (_, i) => [`${name}${i}`, "x".repeat(1_000)]))
      await saveSchema(ada, `${name}/1.0.0`, content)
    }
    const response = await ada.request("PUT", "/api/app/1.0.0", {
      body: { content: { "@extends": parts.map((name) => `${name}/1.0.0`) } },
    })
    expect(response.status).toBe(400)
    expect((response.body as { error: string }).error).toMatch(
      /^The resolved output of app\/1\.0\.0 is 4,5\d\d,\d{3} bytes, at most 4,194,304 \(4 MiB\) are allowed$/,
    )
    expect((await ada.request("GET", "/api/app/1.0.0")).status).toBe(404)
    await saveSchema(ada, "app/1.0.0", { "@extends": parts.slice(0, 4).map((name) => `${name}/1.0.0`) })
  })
})

describe("versions per platform", () => {
  it("accepts 10,000 versions and refuses the 10,001st, in a list or added alone", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    const versions = Array.from({ length: 10_000 }, (_, i) => `${Math.floor(i / 100)}.${i % 100}.0`)
    const tooMany = await ada.request("POST", "/api/ios", {
      body: { name: "ios", versions: [...versions, "999.0.0"] },
    })
    expect(tooMany).toMatchObject({
      status: 400,
      body: { error: 'Platform "ios" would have 10,001 versions, at most 10,000 are allowed' },
    })
    expect((await ada.request("GET", "/api/ios")).status).toBe(404)
    expect((await ada.request("POST", "/api/ios", { body: { name: "ios", versions } })).status).toBe(201)
    expect(await ada.request("POST", "/api/ios/versions", { body: { version: "999.0.0" } })).toMatchObject({
      status: 400,
      body: { error: 'Platform "ios" would have 10,001 versions, at most 10,000 are allowed' },
    })
    // Adding one already listed changes nothing and stays a success.
    expect((await ada.request("POST", "/api/ios/versions", { body: { version: "0.0.0" } })).status).toBe(201)
    expect(((await ada.request("GET", "/api/ios/versions")).body as ReadonlyArray<string>).length).toBe(10_000)
  })
})
