/**
 * Saving and reading schemas over HTTP (seed 000 §4 rules 4–5, DESIGN.md "Saving a schema"): the PUT payload and
 * answer, `+` and `%2B` naming one version, the cascade listed, every 400/404 message, and input limits.
 */

import { createPlatforms, saveSchema, useSchemasServices } from "@coffer/test-kit/schemasService"
import { describe, expect, it } from "vitest"
import { presetHead } from "../middleware/presetHeaders.js"

const service = useSchemasServices()

describe("PUT and GET /api/{platform}/{version}", () => {
  it("saves, answers the resolved schema and the re-processed dependents, and reads back", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { base: ["1.0.0", "1.1.0"], ios: ["2.0.0"], web: ["1.0.0"] })
    await saveSchema(ada, "base/1.1.0", { theme: { color: "red", size: 2 }, list: [1, 2] })
    expect(
      await ada.request("PUT", "/api/ios/2.0.0", {
        body: { content: { "@extends": "base/~1.1.0", theme: { color: "blue" }, list: [3] } },
      }),
    ).toEqual(
      expect.objectContaining({
        status: 200,
        body: {
          ok: true,
          schema: {
            content: { "@extends": "base/~1.1.0", theme: { color: "blue" }, list: [3] },
            dependencies: ["base/~1.1.0"],
            output: { theme: { color: "blue", size: 2 }, list: [3] },
          },
          revision: 1,
          reprocessed: [],
        },
      }),
    )
    await saveSchema(ada, "web/1.0.0", { "@extends": ["ios/2.0.0"], web: true })
    const saved = await saveSchema(ada, "base/1.1.0", { theme: { color: "green", size: 3 } })
    expect(saved.reprocessed).toEqual(["ios/2.0.0", "web/1.0.0"])
    expect(await ada.request("GET", "/api/web/1.0.0")).toEqual(
      expect.objectContaining({
        status: 200,
        body: {
          content: { "@extends": ["ios/2.0.0"], web: true },
          dependencies: ["ios/2.0.0"],
          output: { theme: { color: "blue", size: 3 }, list: [3], web: true },
        },
      }),
    )
  })

  it("treats + and %2B in the version segment as the same version", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { ios: ["1.0.0+build.7", "1.0.0-rc.1+b"] })
    await saveSchema(ada, "ios/1.0.0%2Bbuild.7", { v: 7 })
    expect((await ada.request("GET", "/api/ios/1.0.0+build.7")).body).toMatchObject({ output: { v: 7 } })
    expect((await ada.request("GET", "/api/ios/1.0.0%2Bbuild.7")).body).toMatchObject({ output: { v: 7 } })
    await saveSchema(ada, "ios/1.0.0-rc.1+b", { v: 1 })
    expect((await ada.request("GET", "/api/ios/1.0.0-rc.1%2bb")).body).toMatchObject({ output: { v: 1 } })
    // A space is not a plus.
    expect((await ada.request("GET", "/api/ios/1.0.0%20build.7")).status).toBe(404)
  })

  it("answers 400 for content and references it cannot accept", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { a: ["1.0.0", "2.0.0"], b: ["1.0.0"], c: ["1.0.0"] })
    const put = (key: string, body: unknown) => ada.request("PUT", `/api/${key}`, { body })
    expect(await put("a/1.0.0", {})).toMatchObject({
      status: 400,
      body: { error: 'Missing "content" in the request body' },
    })
    for (const content of [[], "x", null, 1, true]) {
      const response = await put("a/1.0.0", { content })
      expect(response.status).toBe(400)
      expect((response.body as { error: string }).error).toMatch(
        /^Invalid schema content: content must be a plain JSON object/,
      )
    }
    expect(await put("a/1.0.0", { content: { "@extends": 1 } })).toMatchObject({
      status: 400,
      body: { error: "Invalid schema content: @extends must be a string or an array of strings" },
    })
    expect(await put("a/1.0.0", { content: { "@extends": "zz/1.0.0" } })).toMatchObject({
      status: 400,
      body: { error: 'Unresolved @extends reference "zz/1.0.0" in a/1.0.0: platform "zz" was not found' },
    })
    expect((await put("a/1.0.0", { content: { "@extends": "b/3.0.0" } })).status).toBe(400)
    expect(await put("a/1.0.0", { content: { "@extends": "b/^2.0.0" } })).toMatchObject({
      status: 400,
      body: { error: 'Unresolved @extends reference "b/^2.0.0" in a/1.0.0: no version of platform "b" matches ^2.0.0' },
    })
    await saveSchema(ada, "b/1.0.0", { "@extends": "c/1.0.0" })
    await saveSchema(ada, "c/1.0.0", { "@extends": "a/>=2.0.0" })
    const cycle = await put("a/2.0.0", { content: { "@extends": "b" } })
    expect(cycle.status).toBe(400)
    expect((cycle.body as { error: string }).error).toContain("Circular dependency detected")
    expect((await ada.request("GET", "/api/a/2.0.0")).status).toBe(404)
  })

  it("answers 404 naming what is missing", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { ios: ["1.0.0"] })
    expect(await ada.request("GET", "/api/web/1.0.0")).toMatchObject({
      status: 404,
      body: { error: 'Platform "web" was not found' },
    })
    expect(await ada.request("GET", "/api/ios/2.0.0")).toMatchObject({
      status: 404,
      body: { error: 'Version "2.0.0" of platform "ios" was not found' },
    })
    expect(await ada.request("GET", "/api/ios/1.0.0")).toMatchObject({
      status: 404,
      body: { error: 'Schema for version "1.0.0" of platform "ios" was not found' },
    })
    expect(await ada.request("PUT", "/api/ios/2.0.0", { body: { content: {} } })).toMatchObject({ status: 404 })
    expect(await ada.request("PUT", "/api/web/1.0.0", { body: { content: {} } })).toMatchObject({ status: 404 })
  })

  it("answers odd path segments and oversized or hostile bodies with 4xx JSON, never 500", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { ios: ["1.0.0"] })
    for (const path of [
      "/api/%ZZ",
      "/api/%E0%A4%A/1.0.0",
      "/api/a%2Fb/1.0.0",
      "/api/ios/%00",
      "/api/%00/versions",
      `/api/${"x".repeat(5000)}`,
      `/api/ios/${"1".repeat(5000)}`,
      "/api/ios/..%2F..%2Fetc",
      "/api/__proto__/constructor",
    ]) {
      for (const method of ["GET", "PUT", "POST"]) {
        const response = await ada.request(method, path, method === "GET" ? {} : { body: { content: {} } })
        expect(response.status, `${method} ${path}`).toBeGreaterThanOrEqual(400)
        expect(response.status, `${method} ${path}`).toBeLessThan(500)
        expect(response.body, `${method} ${path}`).toEqual({ error: expect.any(String) })
      }
    }
    const big = await ada.request("PUT", "/api/ios/1.0.0", { body: { content: { pad: "x".repeat(1024 * 1024) } } })
    expect(big).toMatchObject({ status: 413, body: { error: expect.stringContaining("1 MiB") } })
    const deep = `{"content":${"[".repeat(150)}${"]".repeat(150)}}`
    expect(await ada.request("PUT", "/api/ios/1.0.0", { body: deep })).toMatchObject({ status: 400 })
    expect(
      await ada.request("PUT", "/api/ios/1.0.0", { body: "{}", headers: { "content-type": "text/plain" } }),
    ).toMatchObject({ status: 415 })
  })

  it("keeps __proto__ and constructor as data", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { base: ["1.0.0"], ios: ["1.0.0"] })
    await ada.request("PUT", "/api/base/1.0.0", { body: '{"content":{"__proto__":{"admin":true},"constructor":1}}' })
    const saved = await saveSchema(ada, "ios/1.0.0", { "@extends": "base" })
    expect(JSON.stringify(saved.schema.output)).toBe('{"__proto__":{"admin":true},"constructor":1}')
    expect(({} as Record<string, unknown>).admin).toBeUndefined()
  })
})

describe("ETag and If-None-Match on GET /api/{platform}/{version}", () => {
  it("answers an ETag, 304 without a body for a match, a new tag after a save, and checks credentials first", async () => {
    const { app, person, withToken } = service({ OIDC_ADMIN_GROUP: "admins" })
    const ada = await person("ada@example.com", ["admins"])
    await createPlatforms(ada, { base: ["1.0.0"] })
    await saveSchema(ada, "base/1.0.0", { theme: { color: "red" } })
    const { client: ci, id, token } = await withToken(ada)
    const first = await ci.request("GET", "/api/base/1.0.0")
    const etag = first.headers.get("etag")
    expect(first.status).toBe(200)
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/)
    expect(first.headers.get("content-type")).toBe("application/json")
    expect(first.headers.get("cache-control")).toBe("no-store")
    // The same bytes answer the same tag, for a token and a session alike.
    expect((await ada.request("GET", "/api/base/1.0.0")).headers.get("etag")).toBe(etag)

    for (const header of [etag!, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const polled = await ci.request("GET", "/api/base/1.0.0", { headers: { "if-none-match": header } })
      expect(polled).toMatchObject({ status: 304, body: undefined })
      expect(polled.headers.get("etag")).toBe(etag)
      expect(polled.headers.get("x-content-type-options")).toBe("nosniff")
    }
    expect((await ci.request("GET", "/api/base/1.0.0", { headers: { "if-none-match": '"other"' } })).status).toBe(200)

    // A host may write a bodiless answer from its record (`presetHead`; the Node listener does): the status, every
    // header the response carries, and nothing for an answer with a body.
    const raw = (headers: Record<string, string>) =>
      app.request("http://coffer.test/api/base/1.0.0", { headers: { ...headers, authorization: `Bearer ${token}` } })
    const polled = await raw({ "if-none-match": etag!, "x-request-id": "poll-1" })
    const head = presetHead(polled)
    expect(head?.status).toBe(304)
    expect(Object.fromEntries(new Headers(head?.headers))).toEqual(Object.fromEntries(polled.headers))
    expect(head?.headers).toMatchObject({ ETag: etag, "X-Request-Id": "poll-1", "Cache-Control": "no-store" })
    expect(presetHead(await raw({}))).toBeUndefined()

    await saveSchema(ada, "base/1.0.0", { theme: { color: "blue" } })
    const changed = await ci.request("GET", "/api/base/1.0.0", { headers: { "if-none-match": etag! } })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({ output: { theme: { color: "blue" } } })
    expect(changed.headers.get("etag")).not.toBe(etag)

    // A tag never stands in for a credential: a revoked token is refused even when it names the current tag.
    const current = changed.headers.get("etag")!
    expect((await ada.request("DELETE", `/api/_ui/v1/tokens/${id}`)).status).toBe(200)
    expect((await ci.request("GET", "/api/base/1.0.0", { headers: { "if-none-match": current } })).status).toBe(401)
  })
})

describe("the headers of GET /api/{platform}/{version}", () => {
  const PRESET = [
    "x-request-id",
    "cache-control",
    "x-content-type-options",
    "x-frame-options",
    "referrer-policy",
    "content-security-policy",
    "cross-origin-resource-policy",
  ]
  const expectPreset = (headers: Headers, requestId?: string) => {
    for (const name of PRESET) expect(headers.get(name), name).not.toBeNull()
    expect(headers.get("cache-control")).toBe("no-store")
    if (requestId !== undefined) expect(headers.get("x-request-id")).toBe(requestId)
  }

  // The read holds its headers in a record until its answer (`presetResponse`); every other way out must still
  // carry them, and a header set through the context (CORS here) must reach the answer beside them.
  it("are on every answer: 200 and 304, errors, with a token or a session, with CORS listed or not", async () => {
    const origin = "https://dash.example.com"
    const { app, person, withToken } = service({ OIDC_ADMIN_GROUP: "admins", CORS_ORIGIN: origin })
    const ada = await person("ada@example.com", ["admins"])
    await createPlatforms(ada, { base: ["1.0.0", "2.0.0"] })
    await saveSchema(ada, "base/1.0.0", { theme: { color: "red" } })
    const { client: ci, token } = await withToken(ada)

    const read = await ci.request("GET", "/api/base/1.0.0", { headers: { "x-request-id": "read-1" } })
    expect(read.status).toBe(200)
    expectPreset(read.headers, "read-1")
    expect(read.headers.get("content-type")).toBe("application/json")
    expect(read.headers.get("access-control-allow-origin")).toBeNull()
    const etag = read.headers.get("etag")!

    const polled = await ci.request("GET", "/api/base/1.0.0", { headers: { "if-none-match": etag } })
    expect(polled.status).toBe(304)
    expectPreset(polled.headers)
    expect(polled.headers.get("etag")).toBe(etag)

    const fromOrigin = await ci.request("GET", "/api/base/1.0.0", { headers: { origin } })
    expect(fromOrigin.status).toBe(200)
    expectPreset(fromOrigin.headers)
    expect(fromOrigin.headers.get("access-control-allow-origin")).toBe(origin)
    expect(fromOrigin.headers.get("vary")).toMatch(/origin/i)
    expect(fromOrigin.headers.get("etag")).toBe(etag)
    expect(fromOrigin.body).toMatchObject({ output: { theme: { color: "red" } } })
    // A browser lets the page read the tag, and send it back, only when CORS says so: neither header is safelisted.
    expect(fromOrigin.headers.get("access-control-expose-headers")?.split(/,\s*/)).toContain("ETag")
    const preflight = await app.request("http://coffer.test/api/base/1.0.0", {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization,if-none-match",
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase().split(/,\s*/)).toEqual(
      expect.arrayContaining(["authorization", "if-none-match"]),
    )

    // Answered through the context (CORS set a header), the 304 carries its headers itself: no record for a host.
    const crossOrigin = await app.request("http://coffer.test/api/base/1.0.0", {
      headers: { "if-none-match": etag, origin, authorization: `Bearer ${token}` },
    })
    expect(crossOrigin.status).toBe(304)
    expect(presetHead(crossOrigin)).toBeUndefined()
    expectPreset(crossOrigin.headers)
    expect(crossOrigin.headers.get("access-control-allow-origin")).toBe(origin)

    const missing = await ci.request("GET", "/api/base/2.0.0", { headers: { "x-request-id": "missing-1" } })
    expect(missing.status).toBe(404)
    expectPreset(missing.headers, "missing-1")
    const refused = await ci.request("GET", "/api/base/1.0.0", { headers: { authorization: "Bearer cfs_not-a-token" } })
    expect(refused.status).toBe(401)
    expectPreset(refused.headers)
    const bySession = await ada.request("GET", "/api/base/1.0.0")
    expect(bySession.status).toBe(200)
    expectPreset(bySession.headers)
  })
})

describe("PUT /api/{platform}/{version} with expectedRevision (check-and-set)", () => {
  it("saves on the revision read, answers the next one, and refuses a stale one with 409 and the current revision", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { ios: ["1.0.0"] })
    // Nothing saved yet: the dashboard's read says so, and 0 is the revision to expect.
    expect(await ada.request("GET", "/api/_ui/v1/platforms/ios/versions/1.0.0")).toMatchObject({ status: 404 })
    const first = await ada.request("PUT", "/api/ios/1.0.0", { body: { content: { v: 1 }, expectedRevision: 0 } })
    expect(first).toMatchObject({ status: 200, body: { ok: true, revision: 1 } })
    expect(await ada.request("GET", "/api/_ui/v1/platforms/ios/versions/1.0.0")).toEqual(
      expect.objectContaining({
        status: 200,
        body: { content: { v: 1 }, dependencies: [], output: { v: 1 }, revision: 1 },
      }),
    )
    expect(
      await ada.request("PUT", "/api/ios/1.0.0", { body: { content: { v: 2 }, expectedRevision: 1 } }),
    ).toMatchObject({ status: 200, body: { revision: 2 } })
    for (const stale of [0, 1, 7]) {
      expect(
        await ada.request("PUT", "/api/ios/1.0.0", { body: { content: { v: "lost" }, expectedRevision: stale } }),
      ).toEqual(
        expect.objectContaining({
          status: 409,
          body: { error: expect.stringContaining("was saved since it was read"), revision: 2 },
        }),
      )
    }
    expect((await ada.request("GET", "/api/ios/1.0.0")).body).toMatchObject({ content: { v: 2 } })
    // Without the field, a save lands whatever the revision, as it always did.
    expect(await ada.request("PUT", "/api/ios/1.0.0", { body: { content: { v: 3 } } })).toMatchObject({
      status: 200,
      body: { revision: 3 },
    })
  })

  it("refuses an expectedRevision that is not a whole number from 0 with 400, before anything is saved", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { ios: ["1.0.0"] })
    for (const bad of [-1, 1.5, "1", null, true, [1], { n: 1 }, 2 ** 53, 1e300]) {
      const answer = await ada.request("PUT", "/api/ios/1.0.0", { body: { content: { v: 1 }, expectedRevision: bad } })
      expect(answer.status, JSON.stringify(bad)).toBe(400)
      expect(answer.body).toEqual({ error: expect.stringContaining("expectedRevision") })
    }
    expect(await ada.request("GET", "/api/ios/1.0.0")).toMatchObject({ status: 404 })
  })

  it("answers 404 for a missing version before comparing revisions", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { ios: ["1.0.0"] })
    expect(
      await ada.request("PUT", "/api/ios/9.9.9", { body: { content: { v: 1 }, expectedRevision: 3 } }),
    ).toMatchObject({ status: 404 })
    expect(await ada.request("GET", "/api/_ui/v1/platforms/ios/versions/9.9.9")).toMatchObject({ status: 404 })
  })
})
