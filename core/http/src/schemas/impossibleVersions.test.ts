/**
 * Reads of versions that could never exist (seed 000 §2 version-string rules) over HTTP: they answer 404 at once
 * and leave nothing in the schema read cache, so a reader looping over made-up strings cannot grow it. A
 * well-formed version that is merely missing is still cached (the control that the check looks where entries go).
 */
import { Cache, quote } from "@coffer/kernel"
import { SchemaCache } from "@coffer/schemas"
import { createPlatforms, useSchemasServices } from "@coffer/test-kit/schemasService"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"

const service = useSchemasServices()

const impossible = [
  "x".repeat(16 * 1024),
  "1.0",
  "v1.0.0",
  " 1.0.0",
  "1.0.0 ",
  "01.0.0",
  "1.0.0++",
  `1.0.0-${"a".repeat(200)}`,
  "1.0.0_beta",
  "latest",
  "^1.0.0",
]

describe("GET /api/{platform}/{version} with an impossible version", () => {
  it("answers 404 and caches nothing, while a missing well-formed version is cached", async () => {
    const { person, withToken, runtime } = service()
    const admin = await person("root@example.com")
    await createPlatforms(admin, { ios: ["1.0.0"] })
    const { client } = await withToken(admin)
    for (const version of impossible) {
      const response = await client.request("GET", `/api/ios/${encodeURIComponent(version)}`)
      expect(response).toMatchObject({
        status: 404,
        body: { error: `Version ${quote(version)} of platform "ios" was not found` },
      })
    }
    expect((await client.request("GET", "/api/ios/9.9.9")).status).toBe(404)
    const cached = await runtime.runPromise(
      Effect.gen(function* () {
        const cache = yield* Cache.Cache
        const generation = yield* cache.get(SchemaCache.GENERATION_KEY)
        const entry = (version: string) => cache.get(`schemas:schema:${generation}:ios/${version}`)
        return {
          impossible: yield* Effect.forEach(impossible, entry),
          missing: yield* entry("9.9.9"),
        }
      }),
    )
    expect(cached.impossible.every((value) => value === undefined)).toBe(true)
    expect(cached.missing).toBeDefined()
  })
})
