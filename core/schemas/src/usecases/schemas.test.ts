import { quote } from "@coffer/kernel"
import { admin, editor, makeEnvironment, T0, tokenFor, viewer } from "@coffer/test-kit/schemas"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import fc from "fast-check"
import { afterEach, describe, expect, it } from "vitest"
import type { Actor } from "../access.js"
import { mergeAll } from "../domain/merge.js"
import { isValidPlatformName } from "../domain/platform.js"
import { resolveSchema } from "../domain/resolve.js"
import { schemaKey } from "../domain/schemaId.js"
import * as MemorySchemaStore from "../memory/MemorySchemaStore.js"
import type { SchemaStore } from "../SchemaStore.js"
import * as Platforms from "./platforms.js"
import * as Schemas from "./schemas.js"

type Environment = ReturnType<typeof makeEnvironment>
const environments: Array<Environment> = []
const environment = (store?: SchemaStore["Service"]) => {
  const created = makeEnvironment(store)
  environments.push(created)
  return created
}
afterEach(async () => {
  await Promise.all(environments.splice(0).map((env) => env.dispose()))
})

/** Platforms with versions, created by an admin. */
const platforms = (env: Environment, spec: Readonly<Record<string, ReadonlyArray<string>>>) =>
  env.run(
    Effect.forEach(Object.entries(spec), ([name, versions]) => Platforms.putPlatform(admin, name, { name, versions }), {
      discard: true,
    }),
  )

const save = (env: Environment, key: string, content: unknown) => {
  const [platform, version] = key.split("/") as [string, string]
  return env.run(Schemas.saveSchema(editor, { platform, version }, content))
}

const saveError = (env: Environment, key: string, content: unknown) => {
  const [platform, version] = key.split("/") as [string, string]
  return env.flip(Schemas.saveSchema(editor, { platform, version }, content))
}

const read = (env: Environment, key: string, actor: Actor = admin) => {
  const [platform, version] = key.split("/") as [string, string]
  return env.run(Schemas.readSchema(actor, { platform, version }))
}

const readError = (env: Environment, key: string, actor: Actor = admin) => {
  const [platform, version] = key.split("/") as [string, string]
  return env.flip(Schemas.readSchema(actor, { platform, version }))
}

/** Everything stored about schemas, for "nothing changed" comparisons. */
const snapshot = (env: Environment) =>
  env.run(
    Effect.gen(function* () {
      const list = yield* env.store.listPlatforms
      const rows: Array<unknown> = []
      for (const platform of list) {
        for (const version of platform.versions) {
          const id = { platform: platform.name, version }
          rows.push({ id, schema: yield* env.store.findSchema(id), revisions: yield* env.store.revisions(id) })
        }
      }
      return { list, rows }
    }),
  )

describe("saveSchema", () => {
  it("saves content, resolves the output, and reads it back", async () => {
    const env = environment()
    await platforms(env, { base: ["1.0.0", "1.2.0"], ios: ["2.0.0"] })
    await save(env, "base/1.2.0", { theme: { color: "red", size: 1 }, flags: ["a"] })
    const result = await save(env, "ios/2.0.0", {
      "@extends": "base/^1.0.0",
      theme: { color: "blue" },
      flags: ["b"],
    })
    expect(result).toEqual({
      schema: {
        content: { "@extends": "base/^1.0.0", theme: { color: "blue" }, flags: ["b"] },
        dependencies: ["base/^1.0.0"],
        output: { theme: { color: "blue", size: 1 }, flags: ["b"] },
      },
      revision: 1,
      reprocessed: [],
    })
    expect(await read(env, "ios/2.0.0")).toEqual(result.schema)
    expect((await env.run(env.store.findSchema({ platform: "ios", version: "2.0.0" })))?.sources).toEqual([
      "base",
      "ios",
    ])
  })

  it("merges several parents left to right, then the child", async () => {
    const env = environment()
    await platforms(env, { a: ["1.0.0"], b: ["1.0.0"], c: ["1.0.0"] })
    await save(env, "a/1.0.0", { k: { x: 1 }, only: "a" })
    await save(env, "b/1.0.0", { k: { x: 2, y: 2 } })
    const { schema } = await save(env, "c/1.0.0", { "@extends": ["a/1.0.0", "b"], k: { z: 3 } })
    expect(schema.output).toEqual({ k: { x: 2, y: 2, z: 3 }, only: "a" })
    expect(schema.dependencies).toEqual(["a/1.0.0", "b"])
  })

  it("re-resolves every transitive dependent once, dependencies first, and lists them", async () => {
    const env = environment()
    await platforms(env, { base: ["1.0.0"], mid: ["1.0.0"], left: ["1.0.0"], right: ["1.0.0"], top: ["1.0.0"] })
    await save(env, "base/1.0.0", { v: 1 })
    await save(env, "mid/1.0.0", { "@extends": "base" })
    await save(env, "left/1.0.0", { "@extends": "mid/1.0.0", left: true })
    await save(env, "right/1.0.0", { "@extends": "mid/latest", right: true })
    await save(env, "top/1.0.0", { "@extends": ["left/1.0.0", "right/1.0.0"] })
    const { reprocessed } = await save(env, "base/1.0.0", { v: 2 })
    expect(reprocessed).toEqual(["mid/1.0.0", "left/1.0.0", "right/1.0.0", "top/1.0.0"])
    expect((await read(env, "top/1.0.0")).output).toEqual({ v: 2, left: true, right: true })
    expect((await read(env, "left/1.0.0")).output).toEqual({ v: 2, left: true })
  })

  it("cascades only to dependents whose reference selects the saved version", async () => {
    const env = environment()
    await platforms(env, { base: ["1.0.0", "2.0.0"], pinned: ["1.0.0"], ranged: ["1.0.0"] })
    await save(env, "pinned/1.0.0", { "@extends": "base/1.0.0" })
    await save(env, "ranged/1.0.0", { "@extends": "base/^2.0.0" })
    expect((await save(env, "base/2.0.0", { v: 2 })).reprocessed).toEqual(["ranged/1.0.0"])
    expect((await save(env, "base/1.0.0", { v: 1 })).reprocessed).toEqual(["pinned/1.0.0"])
  })

  it("rejects what seed 000 §4 rule 4 rejects, naming the problem", async () => {
    const env = environment()
    await platforms(env, { a: ["1.0.0", "1.5.0"], b: ["1.0.0"], c: ["1.0.0"] })
    for (const content of [[], "text", null, 3, { "@extends": 3 }, { "@extends": [null] }]) {
      expect((await saveError(env, "a/1.0.0", content))._tag).toBe("InvalidSchemaContent")
    }
    expect(await saveError(env, "a/1.0.0", { "@extends": "zz/1.0.0" })).toMatchObject({
      _tag: "Unresolved",
      message: expect.stringContaining('platform "zz" was not found'),
    })
    expect((await saveError(env, "a/1.0.0", { "@extends": "b/9.9.9" }))._tag).toBe("Unresolved")
    expect((await saveError(env, "a/1.0.0", { "@extends": "b/^2.0.0" })).message).toContain("matches ^2.0.0")
    expect((await saveError(env, "a/1.0.0", { "@extends": "b/=1" }))._tag).toBe("InvalidReference")
    await save(env, "b/1.0.0", { "@extends": "c/1.0.0" })
    await save(env, "c/1.0.0", { "@extends": "a/^1.0.0" })
    const cycle = await saveError(env, "a/1.5.0", { "@extends": "b/1.0.0" })
    expect(cycle._tag).toBe("CircularDependency")
    expect(cycle.message).toBe("Circular dependency detected: a/1.5.0 -> b/1.0.0 -> c/1.0.0 -> a/1.5.0")
    expect((await saveError(env, "a/1.0.0", { "@extends": "a/1.0.0" })).message).toContain(
      "Circular dependency detected",
    )
    expect(await saveError(env, "a/9.0.0", {})).toMatchObject({ _tag: "VersionNotFound" })
    expect(await saveError(env, "zz/1.0.0", {})).toMatchObject({ _tag: "PlatformNotFound" })
  })

  it("refuses content with an unpaired surrogate in a key or a string, storing nothing", async () => {
    const env = environment()
    await platforms(env, { a: ["1.0.0"], b: ["1.0.0"] })
    await save(env, "a/1.0.0", { kept: "as it was" })
    await save(env, "b/1.0.0", { "@extends": "a/1.0.0" })
    const before = await snapshot(env)
    for (const content of [{ v: "\uD800" }, { "k\uDC00": 1 }, { "@extends": "a/1.0.0", deep: [{ v: "x\uDBFFy" }] }]) {
      expect(await saveError(env, "a/1.0.0", content)).toMatchObject({
        _tag: "InvalidSchemaContent",
        message: expect.stringMatching(/holds an unpaired surrogate \(U\+D[89A-F][0-9A-F]{2}\)/),
      })
    }
    expect(await snapshot(env)).toEqual(before)
    // A character outside the Basic Multilingual Plane is a surrogate pair, and well-formed.
    expect((await save(env, "a/1.0.0", { "🚀": "😀" })).schema.output).toEqual({ "🚀": "😀" })
  })

  it("never asks the store for a platform no name rule allows, as an @extends reference may name", async () => {
    // A store that refuses such a lookup outright, as Postgres refuses text holding a NUL.
    const memory = Effect.runSync(MemorySchemaStore.make)
    const asked: Array<string> = []
    const env = environment({
      ...memory,
      loadPlatforms: (names) => {
        asked.push(...names)
        return names.some((name) => !isValidPlatformName(name))
          ? Effect.die(new Error(`the store was asked for ${JSON.stringify(names)}`))
          : memory.loadPlatforms(names)
      },
    })
    await platforms(env, { a: ["1.0.0"] })
    // Refused as references before any lookup: no platform can bear such a name.
    for (const reference of ["a\u0000b", "a\u0000b/1.0.0", "no such platform", "schemas/latest", "x".repeat(65)]) {
      expect(await saveError(env, "a/1.0.0", { "@extends": reference })).toMatchObject({
        _tag: "InvalidReference",
        message: expect.stringContaining("is no platform name"),
      })
    }
    expect(await saveError(env, "a/1.0.0", { "@extends": "ghost/1.0.0" })).toMatchObject({
      _tag: "Unresolved",
      message: expect.stringContaining(`platform ${quote("ghost")} was not found`),
    })
    expect(asked.filter((name) => !isValidPlatformName(name))).toEqual([])
    expect(asked).toContain("a")
  })

  it("needs write permission on the platform, and refuses tokens", async () => {
    const env = environment()
    await platforms(env, { a: ["1.0.0"] })
    expect((await env.flip(Schemas.saveSchema(viewer, { platform: "a", version: "1.0.0" }, {}))).message).toContain(
      "permission",
    )
    expect(await env.flip(Schemas.saveSchema(tokenFor(null), { platform: "a", version: "1.0.0" }, {}))).toMatchObject({
      _tag: "Forbidden",
      message: "API tokens are read-only",
    })
  })

  it("changes nothing, dependents included, when one dependent cannot be re-resolved", async () => {
    const env = environment()
    await platforms(env, { base: ["1.0.0"], good: ["1.0.0"], broken: ["1.0.0"] })
    await save(env, "base/1.0.0", { v: 1 })
    await save(env, "good/1.0.0", { "@extends": "base" })
    // Stored data a save could not produce today: a schema extending a platform that does not exist.
    await env.run(
      env.store.saveSchema({
        platform: "broken",
        version: "1.0.0",
        content: { "@extends": ["base/1.0.0", "gone/1.0.0"] },
        dependencies: ["base/1.0.0", "gone/1.0.0"],
        output: { v: 1 },
        sources: undefined,
        savedBy: "legacy",
        savedAt: T0,
      }),
    )
    const before = await snapshot(env)
    const error = await saveError(env, "base/1.0.0", { v: 2 })
    expect(error).toMatchObject({ _tag: "Unresolved", referencedBy: "broken/1.0.0" })
    expect(await snapshot(env)).toEqual(before)
    expect((await read(env, "good/1.0.0")).output).toEqual({ v: 1 })
  })

  it("reads the closure in a number of store calls that follows its depth, not its size", async () => {
    const counts = { loadPlatforms: 0, dependentsOf: 0 }
    const env = environment()
    const counting: SchemaStore["Service"] = {
      ...env.store,
      loadPlatforms: (names) =>
        Effect.suspend(() => {
          counts.loadPlatforms++
          return env.store.loadPlatforms(names)
        }),
      dependentsOf: (names) =>
        Effect.suspend(() => {
          counts.dependentsOf++
          return env.store.dependentsOf(names)
        }),
    }
    const counted = environment(counting)
    // 40 dependents on 40 platforms, each two levels below `base`.
    const spec: Record<string, ReadonlyArray<string>> = { base: ["1.0.0"] }
    for (let i = 0; i < 40; i++) {
      spec[`mid${i}`] = ["1.0.0"]
      spec[`leaf${i}`] = ["1.0.0"]
    }
    await platforms(counted, spec)
    for (let i = 0; i < 40; i++) {
      await save(counted, `mid${i}/1.0.0`, { "@extends": "base", i })
      await save(counted, `leaf${i}/1.0.0`, { "@extends": [`mid${i}`, "base/1.0.0"] })
    }
    counts.loadPlatforms = 0
    counts.dependentsOf = 0
    const { reprocessed } = await save(counted, "base/1.0.0", { v: 1 })
    expect(reprocessed).toHaveLength(80)
    expect(counts.loadPlatforms).toBeLessThanOrEqual(4)
    expect(counts.dependentsOf).toBeLessThanOrEqual(3)
    expect((await read(counted, "leaf7/1.0.0")).output).toEqual({ v: 1, i: 7 })
  })
})

describe("readSchema", () => {
  it("answers 404 for a missing platform, version or schema, each saying which", async () => {
    const env = environment()
    await platforms(env, { a: ["1.0.0", "2.0.0"] })
    await save(env, "a/1.0.0", {})
    expect((await readError(env, "zz/1.0.0")).message).toBe('Platform "zz" was not found')
    expect((await readError(env, "a/3.0.0")).message).toBe('Version "3.0.0" of platform "a" was not found')
    expect((await readError(env, "a/2.0.0")).message).toBe('Schema for version "2.0.0" of platform "a" was not found')
    expect((await readError(env, "a b/1.0.0"))._tag).toBe("PlatformNotFound")
  })

  it("hides platforms outside a token's scope and refuses schemas it does not fully cover", async () => {
    const env = environment()
    await platforms(env, { base: ["1.0.0"], ios: ["1.0.0"], web: ["1.0.0"] })
    await save(env, "base/1.0.0", { b: 1 })
    await save(env, "ios/1.0.0", { "@extends": "base" })
    await save(env, "web/1.0.0", { w: 1 })
    expect((await readError(env, "web/1.0.0", tokenFor(["ios"])))._tag).toBe("PlatformNotFound")
    expect((await readError(env, "web/9.9.9", tokenFor(["ios"])))._tag).toBe("PlatformNotFound")
    expect(await readError(env, "ios/1.0.0", tokenFor(["ios"]))).toMatchObject({ _tag: "Forbidden" })
    expect((await read(env, "ios/1.0.0", tokenFor(["base", "ios"]))).output).toEqual({ b: 1 })
    expect((await read(env, "ios/1.0.0", tokenFor(null))).output).toEqual({ b: 1 })
    expect((await read(env, "web/1.0.0", tokenFor(["web"]))).output).toEqual({ w: 1 })
  })

  it("lets no scoped token read a schema with @extends whose sources were never recorded, until its next save", async () => {
    const env = environment()
    await platforms(env, { base: ["1.0.0"], ios: ["1.0.0", "2.0.0"] })
    const legacy = (version: string, dependencies: ReadonlyArray<string>) =>
      env.run(
        env.store.saveSchema({
          platform: "ios",
          version,
          content: dependencies.length === 0 ? { own: 1 } : { "@extends": [...dependencies] },
          dependencies,
          output: { own: 1 },
          sources: undefined,
          savedBy: "legacy",
          savedAt: T0,
        }),
      )
    await legacy("1.0.0", ["base/1.0.0"])
    await legacy("2.0.0", [])
    expect((await readError(env, "ios/1.0.0", tokenFor(["base", "ios"])))._tag).toBe("Forbidden")
    expect((await read(env, "ios/1.0.0", tokenFor(null))).output).toEqual({ own: 1 })
    // Without @extends its own platform is everything it can hold.
    expect((await read(env, "ios/2.0.0", tokenFor(["ios"]))).output).toEqual({ own: 1 })
    await save(env, "ios/1.0.0", { "@extends": "base/1.0.0" })
    expect((await read(env, "ios/1.0.0", tokenFor(["base", "ios"]))).output).toEqual({})
  })

  it("never serves a cached answer after a save, a cascade, a new version or a deletion", async () => {
    const env = environment()
    await platforms(env, { base: ["1.0.0"], ios: ["1.0.0"] })
    expect((await readError(env, "ios/1.0.0"))._tag).toBe("SchemaNotFound")
    await save(env, "base/1.0.0", { v: 1 })
    await save(env, "ios/1.0.0", { "@extends": "base/^1.0.0" })
    expect((await read(env, "ios/1.0.0")).output).toEqual({ v: 1 })
    expect((await read(env, "ios/1.0.0")).output).toEqual({ v: 1 })
    await save(env, "base/1.0.0", { v: 2 })
    expect((await read(env, "ios/1.0.0")).output).toEqual({ v: 2 })
    await env.run(Platforms.addVersion(editor, "base", "1.1.0"))
    await save(env, "base/1.1.0", { v: 3 })
    expect((await read(env, "ios/1.0.0")).output).toEqual({ v: 3 })
    await save(env, "ios/1.0.0", {})
    await env.run(Platforms.deleteVersion(admin, "base", "1.1.0"))
    expect((await readError(env, "base/1.1.0"))._tag).toBe("VersionNotFound")
    await env.run(Platforms.deletePlatform(admin, "base"))
    expect((await readError(env, "base/1.0.0"))._tag).toBe("PlatformNotFound")
  })

  it("reads from the store while the cache is down, and refuses writes it could not invalidate", async () => {
    const env = environment()
    await platforms(env, { a: ["1.0.0"] })
    await save(env, "a/1.0.0", { v: 1 })
    env.cache.state.down = true
    expect((await read(env, "a/1.0.0")).output).toEqual({ v: 1 })
    const before = await snapshot(env)
    expect((await saveError(env, "a/1.0.0", { v: 2 }))._tag).toBe("StoreUnavailable")
    expect(await snapshot(env)).toEqual(before)
    env.cache.state.down = false
    expect((await read(env, "a/1.0.0")).output).toEqual({ v: 1 })
    await save(env, "a/1.0.0", { v: 2 })
    expect((await read(env, "a/1.0.0")).output).toEqual({ v: 2 })
  })
})

describe("properties", () => {
  const names = ["a", "b", "c", "d"]
  const versions = ["1.0.0", "1.1.0", "2.0.0"]
  // Mostly references that resolve, so that saves succeed and cascades grow; some that never can.
  const referenceArbitrary = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...names) },
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom(...names), fc.constantFrom(...versions, "latest", "^1.0.0", "~1.1.0", ">=2.0.0"))
        .map(([platform, spec]) => `${platform}/${spec}`),
    },
    { weight: 1, arbitrary: fc.constantFrom("zz/1.0.0", "a/^3.0.0", "b/9.9.9") },
  )
  const contentArbitrary: fc.Arbitrary<unknown> = fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .record(
          {
            "@extends": fc.oneof(referenceArbitrary, fc.array(referenceArbitrary, { maxLength: 2 })),
            // Keys the parents also set, so that what a parent holds shows through in the child's output.
            k: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.record({ x: fc.integer(), y: fc.constant([1]) })),
            p: fc.integer({ min: 0, max: 3 }),
            q: fc.record({ x: fc.integer({ min: 0, max: 3 }) }, { requiredKeys: [] }),
          },
          { requiredKeys: [] },
        )
        .map((content): unknown => JSON.parse(JSON.stringify(content))),
    },
    { weight: 1, arbitrary: fc.constantFrom<unknown>([], "text", null, { "@extends": 5 }) },
  )
  const saveArbitrary = fc.record({
    platform: fc.constantFrom(...names),
    version: fc.constantFrom(...versions),
    content: contentArbitrary,
  })

  /** Every stored output equals a fresh resolution of its content against the store as it is now. */
  const consistent = (env: Environment) =>
    env.run(
      Effect.gen(function* () {
        const loaded = yield* env.store.loadPlatforms(names)
        for (const [platform, data] of loaded) {
          for (const version of data.schemas.keys()) {
            const stored = yield* env.store.findSchema({ platform, version })
            const fresh = resolveSchema({ platform, version, content: data.schemas.get(version) }, (name) =>
              loaded.get(name),
            )
            if (Result.isFailure(fresh)) return `${schemaKey({ platform, version })}: ${fresh.failure.message}`
            if (JSON.stringify(fresh.success.output) !== JSON.stringify(stored?.output)) {
              return `${schemaKey({ platform, version })} is stale`
            }
          }
        }
        return "ok"
      }),
    )

  it("a rejected save changes nothing; a save then a read returns the merged output; outputs never go stale", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(saveArbitrary, { minLength: 1, maxLength: 20 }), async (saves) => {
        const env = makeEnvironment()
        try {
          await platforms(env, Object.fromEntries(names.map((name) => [name, versions])))
          for (const { platform, version, content } of saves) {
            const before = await snapshot(env)
            const outcome = await env.run(Effect.result(Schemas.saveSchema(editor, { platform, version }, content)))
            if (Result.isFailure(outcome)) {
              expect(await snapshot(env)).toEqual(before)
              continue
            }
            const loaded = await env.run(env.store.loadPlatforms(names))
            const expected = resolveSchema({ platform, version, content }, (name) => loaded.get(name))
            expect(Result.isSuccess(expected)).toBe(true)
            const readBack = await env.run(Schemas.readSchema(admin, { platform, version }))
            expect(readBack.output).toEqual(Result.getOrThrow(expected).output)
            expect(readBack.content).toEqual(content)
            expect(await consistent(env)).toBe("ok")
          }
        } finally {
          await env.dispose()
        }
      }),
      { numRuns: 80 },
    )
  })

  it("adding a version that a range or latest now selects leaves no output stale", async () => {
    const addArbitrary = fc.record({
      platform: fc.constantFrom(...names),
      version: fc.constantFrom("1.2.0", "1.1.5", "2.1.0", "3.0.0-rc.1", "3.0.0"),
    })
    await fc.assert(
      fc.asyncProperty(
        fc.array(saveArbitrary, { minLength: 4, maxLength: 16 }),
        fc.array(addArbitrary, { minLength: 1, maxLength: 4 }),
        async (saves, additions) => {
          const env = makeEnvironment()
          try {
            await platforms(env, Object.fromEntries(names.map((name) => [name, versions])))
            for (const { platform, version, content } of saves) {
              await env.run(Effect.ignore(Schemas.saveSchema(editor, { platform, version }, content)))
            }
            for (const { platform, version } of additions) {
              const outcome = await env.run(Effect.result(Platforms.addVersion(editor, platform, version)))
              // A new version that a dependent's range now selects may have no schema yet: that resolves as {}.
              expect(Result.isSuccess(outcome)).toBe(true)
              expect(await consistent(env)).toBe("ok")
            }
          } finally {
            await env.dispose()
          }
        },
      ),
      { numRuns: 60 },
    )
  })

  it("the output of a single parent is the parent merged under the child", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom("a", "b", "c"), fc.jsonValue({ maxDepth: 2 })),
        fc.dictionary(fc.constantFrom("b", "c", "d"), fc.jsonValue({ maxDepth: 2 })),
        async (parent, child) => {
          const env = makeEnvironment()
          try {
            await platforms(env, { p: ["1.0.0"], c: ["1.0.0"] })
            await save(env, "p/1.0.0", parent)
            await save(env, "c/1.0.0", { ...child, "@extends": "p" })
            const expected = mergeAll([parent as Schema.JsonObject], child as Schema.JsonObject)
            expect((await read(env, "c/1.0.0")).output).toEqual(expected)
          } finally {
            await env.dispose()
          }
        },
      ),
      { numRuns: 40 },
    )
  })
})

describe("saveSchema with expectedRevision, and readForEditing", () => {
  const id = { platform: "ios", version: "1.0.0" }

  it("reads the schema with its revision, and a save naming it lands; a stale one is refused", async () => {
    const env = environment()
    await platforms(env, { ios: ["1.0.0"] })
    expect((await env.flip(Schemas.readForEditing(viewer, id)))._tag).toBe("SchemaNotFound")
    await env.run(Schemas.saveSchema(editor, id, { v: 1 }, { expectedRevision: 0 }))
    const read = await env.run(Schemas.readForEditing(viewer, id))
    expect(read).toEqual({ schema: { content: { v: 1 }, dependencies: [], output: { v: 1 } }, revision: 1 })
    expect(await env.run(Schemas.saveSchema(editor, id, { v: 2 }, { expectedRevision: read.revision }))).toMatchObject({
      revision: 2,
    })
    const before = await snapshot(env)
    const refused = await env.flip(Schemas.saveSchema(editor, id, { v: "lost" }, { expectedRevision: read.revision }))
    expect(refused).toMatchObject({ _tag: "SchemaSavedMeanwhile", expectedRevision: 1, revision: 2 })
    expect(refused.message).toBe(`${quote("ios/1.0.0")} was saved since it was read: it is at revision 2, not 1`)
    expect(await snapshot(env)).toEqual(before)
  })

  it("refuses an expectedRevision that is not a whole number from 0 (callers other than HTTP), saving nothing", async () => {
    const env = environment()
    await platforms(env, { ios: ["1.0.0"] })
    for (const bad of [-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      const error = await env.flip(Schemas.saveSchema(editor, id, { v: 1 }, { expectedRevision: bad }))
      expect(error._tag).toBe("BadRequest")
    }
    expect((await env.flip(Schemas.readForEditing(admin, id)))._tag).toBe("SchemaNotFound")
  })

  it("answers 404s for what does not exist, and refuses a viewer's save before comparing revisions", async () => {
    const env = environment()
    await platforms(env, { ios: ["1.0.0"] })
    expect((await env.flip(Schemas.readForEditing(admin, { platform: "nope", version: "1.0.0" })))._tag).toBe(
      "PlatformNotFound",
    )
    expect((await env.flip(Schemas.readForEditing(admin, { platform: "ios", version: "2.0.0" })))._tag).toBe(
      "VersionNotFound",
    )
    expect((await env.flip(Schemas.saveSchema(viewer, id, { v: 1 }, { expectedRevision: 5 })))._tag).toBe("Forbidden")
  })
})

describe("restoreRevision", () => {
  const id = { platform: "ios", version: "1.0.0" }

  it("saves the revision's content again as the next revision, which names it, and re-processes dependents", async () => {
    const env = environment()
    await platforms(env, { ios: ["1.0.0"], web: ["1.0.0"] })
    await save(env, "ios/1.0.0", { color: "red" })
    await save(env, "ios/1.0.0", { color: "blue" })
    await save(env, "web/1.0.0", { "@extends": "ios/1.0.0", size: 1 })
    const restored = await env.run(Schemas.restoreRevision(editor, id, 1, { expectedRevision: 2 }))
    expect(restored).toEqual({
      schema: { content: { color: "red" }, dependencies: [], output: { color: "red" } },
      revision: 3,
      reprocessed: ["web/1.0.0"],
    })
    expect((await read(env, "web/1.0.0")).output).toEqual({ color: "red", size: 1 })
    const revisions = await env.run(env.store.revisions(id))
    expect(revisions.map(({ revision, content, restoredFrom }) => ({ revision, content, restoredFrom }))).toEqual([
      { revision: 1, content: { color: "red" }, restoredFrom: undefined },
      { revision: 2, content: { color: "blue" }, restoredFrom: undefined },
      { revision: 3, content: { color: "red" }, restoredFrom: 1 },
    ])
    expect(revisions[2]?.savedBy).toBe("editor@example.com")
    // An ordinary save after it names nothing.
    expect((await save(env, "ios/1.0.0", { color: "green" })).revision).toBe(4)
    expect((await env.run(env.store.findRevision(id, 4)))?.restoredFrom).toBeUndefined()
  })

  it("refuses, changing nothing: a stale expectedRevision, a revision that is not there, a viewer, a token", async () => {
    const env = environment()
    await platforms(env, { ios: ["1.0.0", "2.0.0"] })
    await save(env, "ios/1.0.0", { v: 1 })
    await save(env, "ios/1.0.0", { v: 2 })
    const before = await snapshot(env)
    expect(await env.flip(Schemas.restoreRevision(editor, id, 1, { expectedRevision: 1 }))).toMatchObject({
      _tag: "SchemaSavedMeanwhile",
      expectedRevision: 1,
      revision: 2,
    })
    expect(await env.flip(Schemas.restoreRevision(editor, id, 3))).toMatchObject({ _tag: "RevisionNotFound" })
    expect((await env.flip(Schemas.restoreRevision(editor, id, 0)))._tag).toBe("BadRequest")
    expect((await env.flip(Schemas.restoreRevision(editor, { platform: "ios", version: "2.0.0" }, 1)))._tag).toBe(
      "RevisionNotFound",
    )
    expect((await env.flip(Schemas.restoreRevision(editor, { platform: "ios", version: "9.0.0" }, 1)))._tag).toBe(
      "VersionNotFound",
    )
    expect((await env.flip(Schemas.restoreRevision(viewer, id, 1)))._tag).toBe("Forbidden")
    expect((await env.flip(Schemas.restoreRevision(tokenFor(null), id, 1)))._tag).toBe("Forbidden")
    expect(await snapshot(env)).toEqual(before)
  })

  it("resolves the old content against the bases as they are now: a reference that no longer resolves is refused", async () => {
    const env = environment()
    await platforms(env, { base: ["1.0.0"], ios: ["1.0.0"] })
    await save(env, "base/1.0.0", { shared: true })
    await save(env, "ios/1.0.0", { "@extends": "base/1.0.0", own: 1 })
    await save(env, "ios/1.0.0", { own: 2 })
    await env.run(Platforms.deleteVersion(admin, "base", "1.0.0"))
    const before = await snapshot(env)
    expect((await env.flip(Schemas.restoreRevision(editor, id, 1)))._tag).toBe("Unresolved")
    expect(await snapshot(env)).toEqual(before)
  })
})
