/**
 * API tokens over HTTP (seed 000 §4 dashboard rows, §5): creation shows the token once, listing never does, a
 * token reads the four data paths with GET and HEAD only, writes and dashboard endpoints refuse it, scope hides
 * and forbids, revocation is immediate, and the check fails closed (503) while the cache is down.
 */

import { createPlatforms, saveSchema, useSchemasServices } from "@coffer/test-kit/schemasService"
import { describe, expect, it } from "vitest"

const service = useSchemasServices()

describe("token management", () => {
  it("creates (201, token shown once), lists records without the token, and revokes", async () => {
    const { person } = service()
    const admin = await person("root@example.com")
    await createPlatforms(admin, { ios: [], web: [] })
    const created = await admin.request("POST", "/api/_ui/v1/tokens", {
      body: { name: "CI", platforms: ["web", "ios"] },
    })
    expect(created.status).toBe(201)
    const { token, record } = created.body as { token: string; record: Record<string, unknown> }
    expect(token).toMatch(/^cfs_[A-Za-z0-9_-]{43}$/)
    expect(record).toEqual({
      id: expect.any(String),
      name: "CI",
      platforms: ["ios", "web"],
      hint: `cfs_…${token.slice(-4)}`,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      createdBy: "root@example.com",
    })
    const listed = await admin.request("GET", "/api/_ui/v1/tokens")
    expect(listed).toMatchObject({ status: 200, body: [record] })
    expect(JSON.stringify(listed.body)).not.toContain(token.slice(4))
    const all = await admin.request("POST", "/api/_ui/v1/tokens", { body: { name: "all" } })
    expect((all.body as { record: { platforms: unknown } }).record.platforms).toBeNull()
    expect(await admin.request("DELETE", `/api/_ui/v1/tokens/${record.id}`)).toMatchObject({
      status: 200,
      body: { ok: true },
    })
    expect(await admin.request("DELETE", `/api/_ui/v1/tokens/${record.id}`)).toMatchObject({
      status: 404,
      body: { error: "Token not found" },
    })
    expect((await admin.request("GET", "/api/_ui/v1/tokens")).body).toHaveLength(1)
  })

  it("needs the admin permission and a valid body", async () => {
    const { person } = service({ OIDC_ADMIN_GROUP: "admins" })
    const admin = await person("root@example.com", ["admins"])
    const editor = await person("ed@example.com")
    for (const [method, path] of [
      ["GET", "/api/_ui/v1/tokens"],
      ["POST", "/api/_ui/v1/tokens"],
      ["DELETE", "/api/_ui/v1/tokens/abc"],
    ] as const) {
      const response = await editor.request(method, path, method === "POST" ? { body: { name: "x" } } : {})
      expect(response).toMatchObject({ status: 403, body: { error: "This requires the admin permission" } })
    }
    expect(await admin.request("POST", "/api/_ui/v1/tokens", { body: {} })).toMatchObject({
      status: 400,
      body: { error: 'Missing "name" in the request body' },
    })
    expect((await admin.request("POST", "/api/_ui/v1/tokens", { body: { name: "x", platforms: "ios" } })).status).toBe(
      400,
    )
    expect(
      (await admin.request("POST", "/api/_ui/v1/tokens", { body: { name: "x", platforms: ["nope"] } })).status,
    ).toBe(400)
    expect(await admin.request("POST", "/api/_ui/v1/tokens", { body: { name: "deploy\u2066bot" } })).toMatchObject({
      status: 400,
      body: { error: "Token name must not contain control, formatting or invisible characters; found U+2066" },
    })
    expect((await admin.request("GET", "/api/_ui/v1/tokens")).body).toEqual([])
  })
})

describe("reading with a token", () => {
  const setup = async (platforms?: ReadonlyArray<string>) => {
    const fixture = service()
    const admin = await fixture.person("root@example.com")
    await createPlatforms(admin, { base: ["1.0.0"], ios: ["1.0.0+b.1"], web: ["1.0.0"] })
    await saveSchema(admin, "base/1.0.0", { b: 1 })
    await saveSchema(admin, "ios/1.0.0+b.1", { "@extends": "base", i: 1 })
    await saveSchema(admin, "web/1.0.0", { w: 1 })
    return { ...fixture, admin, ...(await fixture.withToken(admin, platforms)) }
  }

  it("accepts GET and HEAD on the four data paths", async () => {
    const { client, app, token } = await setup()
    expect((await client.request("GET", "/api/schemas")).body).toEqual([
      { name: "base", versions: ["1.0.0"] },
      { name: "ios", versions: ["1.0.0+b.1"] },
      { name: "web", versions: ["1.0.0"] },
    ])
    expect((await client.request("GET", "/api/ios")).status).toBe(200)
    expect((await client.request("GET", "/api/ios/versions")).body).toEqual(["1.0.0+b.1"])
    expect((await client.request("GET", "/api/ios/1.0.0%2Bb.1")).body).toMatchObject({ output: { b: 1, i: 1 } })
    for (const path of ["/api/schemas", "/api/ios", "/api/ios/versions", "/api/ios/1.0.0+b.1"]) {
      const response = await app.request(`http://coffer.test${path}`, {
        method: "HEAD",
        headers: { authorization: `Bearer ${token}` },
      })
      expect(response.status, path).toBe(200)
      expect(response.headers.get("cache-control")).toBe("no-store")
      expect(await response.text()).toBe("")
    }
  })

  it("refuses every write with 403 and every dashboard endpoint", async () => {
    const { client, app, token } = await setup()
    const writes: ReadonlyArray<readonly [string, string, unknown]> = [
      ["POST", "/api/web", { name: "web", versions: ["1.0.0"] }],
      ["POST", "/api/web/versions", { version: "2.0.0" }],
      ["PUT", "/api/web/1.0.0", { content: {} }],
    ]
    for (const [method, path, body] of writes) {
      expect(await client.request(method, path, { body })).toMatchObject({
        status: 403,
        body: { error: "API tokens are read-only" },
      })
      // Whatever the body: a write with a token is 403 (rule 2), never a 400 that invites fixing the body.
      for (const bad of [{}, "{not json", { version: " 2.0.0", content: [] }, { name: 1, versions: null }]) {
        expect(await client.request(method, path, { body: bad }), `${method} ${path} ${String(bad)}`).toMatchObject({
          status: 403,
          body: { error: "API tokens are read-only" },
        })
      }
      // Nor a 415 for its content type: `curl -d` sends a form's type, and a bearer request is no cross-site form.
      for (const type of ["application/x-www-form-urlencoded", "text/plain", "application/json; charset=latin1"]) {
        const response = await app.request(`http://coffer.test${path}`, {
          method,
          body: JSON.stringify(body),
          headers: { authorization: `Bearer ${token}`, "content-type": type },
        })
        expect([response.status, await response.json()], `${method} ${path} ${type}`).toEqual([
          403,
          { error: "API tokens are read-only" },
        ])
      }
    }
    for (const [method, path] of [
      ["GET", "/api/_ui/v1/tokens"],
      ["GET", "/api/_ui/v1/audit"],
      ["POST", "/api/_ui/v1/platforms"],
      ["DELETE", "/api/_ui/v1/platforms/web"],
      ["DELETE", "/api/_ui/v1/platforms/web/versions/1.0.0"],
      ["DELETE", "/api/_ui/v1/tokens/x"],
    ] as const) {
      const response = await client.request(method, path, method === "POST" ? { body: { name: "tv" } } : {})
      expect(response, `${method} ${path}`).toMatchObject({
        status: 403,
        body: { error: "API tokens are not accepted on dashboard endpoints" },
      })
    }
  })

  it("refuses a logout made with a token (403, saying how a token is revoked) and ends nothing, not even a cookie's session", async () => {
    const { client, admin, token } = await setup()
    const refusal = {
      status: 403,
      body: {
        error:
          "Logout ends a browser session and takes no Authorization header: nothing was ended; an API token stays " +
          "valid until it is revoked (DELETE /api/_ui/v1/tokens/{id}, or the dashboard)",
      },
    }
    expect(await client.request("POST", "/api/auth/logout")).toMatchObject(refusal)
    // The header names the caller alone: the session cookie beside it is not ended, nor cleared.
    const session = await admin.request("GET", "/api/auth/get-session")
    expect(session.status).toBe(200)
    const both = await admin.request("POST", "/api/auth/logout", { headers: { authorization: `Bearer ${token}` } })
    expect(both).toMatchObject(refusal)
    expect(both.headers.getSetCookie()).toEqual([])
    expect(await admin.request("GET", "/api/auth/get-session")).toMatchObject({ status: 200, body: session.body })
    expect((await client.request("GET", "/api/web/1.0.0")).status).toBe(200)
    expect((await admin.request("GET", "/api/_ui/v1/tokens")).body).toHaveLength(1)
    // Without a header, the browser's logout is as it was.
    expect(await admin.request("POST", "/api/auth/logout")).toMatchObject({ status: 200, body: { ok: true } })
    expect((await admin.request("GET", "/api/auth/get-session")).status).toBe(401)
  })

  it("scopes: 404 outside the list, omitted from /api/schemas, 403 unless every merged platform is covered", async () => {
    const { client } = await setup(["ios", "web"])
    expect((await client.request("GET", "/api/schemas")).body).toEqual([
      { name: "ios", versions: ["1.0.0+b.1"] },
      { name: "web", versions: ["1.0.0"] },
    ])
    for (const path of ["/api/base", "/api/base/versions", "/api/base/1.0.0", "/api/base/9.9.9", "/api/zz"]) {
      expect(await client.request("GET", path), path).toMatchObject({
        status: 404,
        body: { error: expect.any(String) },
      })
    }
    expect((await client.request("GET", "/api/base")).body).toEqual({ error: 'Platform "base" was not found' })
    expect(await client.request("GET", "/api/ios/1.0.0+b.1")).toMatchObject({
      status: 403,
      body: { error: "This API token does not cover every platform merged into ios/1.0.0+b.1" },
    })
    expect((await client.request("GET", "/api/web/1.0.0")).body).toMatchObject({ output: { w: 1 } })
  })

  it("answers 401 without a credential, with a malformed header, and for unknown or revoked tokens", async () => {
    const { anonymous, client: tokenClient, admin, id } = await setup()
    expect(await anonymous.request("GET", "/api/schemas")).toMatchObject({
      status: 401,
      body: { error: "Authentication required" },
    })
    for (const authorization of ["Basic abc", "Bearer", "Bearer cfs_nope", "Bearer a b"]) {
      const response = await anonymous.request("GET", "/api/schemas", { headers: { authorization } })
      expect(response.status, authorization).toBe(401)
    }
    expect((await tokenClient.request("GET", "/api/schemas")).status).toBe(200)
    await admin.request("DELETE", `/api/_ui/v1/tokens/${id}`)
    expect(await tokenClient.request("GET", "/api/schemas")).toMatchObject({
      status: 401,
      body: { error: "Invalid or revoked API token" },
    })
    expect((await tokenClient.request("GET", "/api/_ui/v1/tokens")).status).toBe(401)
  })

  it("fails closed with 503 while the cache is down, and recovers", async () => {
    const { client, cache, admin } = await setup()
    expect((await client.request("GET", "/api/ios")).status).toBe(200)
    cache.down = true
    const started = performance.now()
    expect(await client.request("GET", "/api/ios")).toMatchObject({
      status: 503,
      body: { error: "Service unavailable" },
    })
    expect(performance.now() - started).toBeLessThan(1_000)
    // A session needs no cache to read.
    expect((await admin.request("GET", "/api/ios")).status).toBe(200)
    cache.down = false
    expect((await client.request("GET", "/api/ios")).status).toBe(200)
  })
})

describe("CORS and headers on every answer", () => {
  it("allows listed origins (preflight included), no others, and never lets a response be stored", async () => {
    const { anonymous, person } = service({ CORS_ORIGIN: "https://dash.example" })
    const preflight = await anonymous.request("OPTIONS", "/api/schemas", {
      headers: { origin: "https://dash.example", "access-control-request-method": "GET" },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://dash.example")
    expect(preflight.headers.get("access-control-allow-credentials")).toBe("true")
    const refused = await anonymous.request("GET", "/api/schemas", { headers: { origin: "https://evil.example" } })
    expect(refused.status).toBe(401)
    expect(refused.headers.get("access-control-allow-origin")).toBeNull()
    expect(refused.headers.get("cache-control")).toBe("no-store")
    expect(refused.headers.get("x-content-type-options")).toBe("nosniff")
    const ada = await person("ada@example.com")
    const allowed = await ada.request("GET", "/api/schemas", { headers: { origin: "https://dash.example" } })
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://dash.example")
    expect(allowed.headers.get("cache-control")).toBe("no-store")
    // A cookie-authenticated write from another origin is refused before any work.
    const forged = await ada.request("POST", "/api/ios", {
      body: { name: "ios", versions: [] },
      headers: { origin: "https://evil.example" },
    })
    expect(forged.status).toBe(403)
    expect((await ada.request("GET", "/api/schemas")).body).toEqual([])
  })
})
