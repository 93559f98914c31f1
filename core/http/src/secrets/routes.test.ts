/**
 * The secrets routes over HTTP (`app.request`) on the real in-memory adapters and cipher: every endpoint's
 * success shape and status, and its error statuses, bad input of every kind (never a 500, never a change),
 * credentials (cookie, key, expired key, session-only refusals), rate limits on failed credentials and invite
 * acceptance, the export headers, and the audit trail with the client address.
 */

import { TEST_REQUEST_ID } from "@coffer/test-kit/http"
import { CLIENT_HEADER, makeService, populate, type Service } from "@coffer/test-kit/secretsService"
import { afterEach, describe, expect, it } from "vitest"

const services: Array<Service> = []
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.runtime.dispose()))
})
const fresh = (env: Record<string, string> = {}) => {
  const service = makeService(env)
  services.push(service)
  return service
}

const DAY = 24 * 60 * 60 * 1000
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe("projects", () => {
  it("create (201), list with role, get with environments, 409 on a taken slug, delete", async () => {
    const { call, signIn } = fresh()
    const ada = await signIn("ada@example.com")
    const created = await call("POST", "/api/projects", { as: ada.as, body: { name: "My App" } })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      project: {
        id: expect.any(String),
        name: "My App",
        slug: "my-app",
        ownerId: ada.userId,
        createdAt: expect.stringMatching(ISO),
        role: "owner",
      },
    })
    expect((await call("POST", "/api/projects", { as: ada.as, body: { name: "my app!" } })).status).toBe(409)
    const list = await call("GET", "/api/projects", { as: ada.as })
    expect(list.body).toEqual({ projects: [created.body.project] })
    const got = await call("GET", "/api/projects/my-app", { as: ada.as })
    expect(got.body.project).toEqual(created.body.project)
    expect(got.body.environments.map((e: { name: string }) => e.name).sort()).toEqual([
      "development",
      "production",
      "staging",
    ])
    expect(got.body.environments[0]).toEqual({
      id: expect.any(String),
      projectId: created.body.project.id,
      name: expect.any(String),
      createdAt: expect.stringMatching(ISO),
    })
    expect(await call("DELETE", "/api/projects/my-app", { as: ada.as })).toMatchObject({
      status: 200,
      body: { ok: true },
    })
    expect((await call("GET", "/api/projects/my-app", { as: ada.as })).status).toBe(404)
  })

  it("refuses project and API-key names with invisible or reordering characters (400), storing nothing", async () => {
    const { call, signIn } = fresh()
    const ada = await signIn("ada@example.com")
    const spoof = "Billing\u202Etxt.exe"
    expect(await call("POST", "/api/projects", { as: ada.as, body: { name: spoof } })).toMatchObject({
      status: 400,
      body: { error: "Project name must not contain control, formatting or invisible characters; found U+202E" },
    })
    expect((await call("GET", "/api/projects", { as: ada.as })).body).toEqual({ projects: [] })
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    expect(
      await call("POST", "/api/api-keys", {
        as: ada.as,
        body: { name: "ci\u200B", projectSlug: "app", scope: "read" },
      }),
    ).toMatchObject({
      status: 400,
      body: { error: "API key name must not contain control, formatting or invisible characters; found U+200B" },
    })
    expect((await call("GET", "/api/api-keys?project=app", { as: ada.as })).body.apiKeys).toEqual([])
  })

  it("names the wrong field of a body as the schemas service does (one decoder for both)", async () => {
    const { call, signIn } = fresh()
    const ada = await signIn("ada@example.com")
    const cases = [
      [{}, 'Missing "name" in the request body'],
      [{ name: 7 }, 'Invalid "name" in the request body: Expected string'],
      [[], "Request body must be a JSON object"],
    ] as const
    for (const [body, error] of cases) {
      expect(await call("POST", "/api/projects", { as: ada.as, body })).toMatchObject({ status: 400, body: { error } })
    }
    expect((await call("GET", "/api/projects", { as: ada.as })).body).toEqual({ projects: [] })
  })

  it("answers 401 without credentials and 404 for projects out of reach or not slugs", async () => {
    const { call, signIn } = fresh()
    expect(await call("GET", "/api/projects")).toMatchObject({ status: 401, body: { error: "Not signed in" } })
    expect(
      (await call("GET", "/api/projects", { headers: { cookie: "coffer_secrets_session=cfss_forged" } })).status,
    ).toBe(401)
    const ada = await signIn("ada@example.com")
    for (const slug of ["nope", "NOPE", "a..b", "%2e%2e", "ｍｙ-ａｐｐ", "my%2Fapp"]) {
      const result = await call("GET", `/api/projects/${slug}`, { as: ada.as })
      expect([slug, result.status, result.body]).toEqual([slug, 404, { error: expect.any(String) }])
    }
  })
})

describe("environments", () => {
  it("create (201), 409 when it exists, 400 for bad names, delete with its secrets", async () => {
    const { call, signIn } = fresh()
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const created = await call("POST", "/api/projects/app/environments", { as: ada.as, body: { name: "qa-1.x_y" } })
    expect(created.status).toBe(201)
    expect(created.body.environment).toMatchObject({ name: "qa-1.x_y" })
    expect(
      (await call("POST", "/api/projects/app/environments", { as: ada.as, body: { name: "qa-1.x_y" } })).status,
    ).toBe(409)
    for (const name of ["", "..", ".", "a/b", "a b", "ｑａ", "é", "e".repeat(65)]) {
      const result = await call("POST", "/api/projects/app/environments", { as: ada.as, body: { name } })
      expect([name, result.status]).toEqual([name, 400])
    }
    expect(
      (await call("POST", "/api/projects/app/environments", { as: ada.as, body: { name: "e".repeat(64) } })).status,
    ).toBe(201)
    await call("POST", "/api/projects/app/environments/qa-1.x_y/secrets", {
      as: ada.as,
      body: { key: "K", value: "v" },
    })
    expect((await call("DELETE", "/api/projects/app/environments/qa-1.x_y", { as: ada.as })).body).toEqual({ ok: true })
    expect((await call("DELETE", "/api/projects/app/environments/qa-1.x_y", { as: ada.as })).status).toBe(404)
    expect((await call("GET", "/api/projects/app/environments/qa-1.x_y/secrets", { as: ada.as })).status).toBe(404)
    const list = await call("GET", "/api/projects/app/environments", { as: ada.as })
    // The three every project starts with as a change travels through them, then the others by name.
    expect(list.body.environments.map((e: { name: string }) => e.name)).toEqual([
      "development",
      "staging",
      "production",
      "e".repeat(64),
    ])
  })
})

describe("secrets", () => {
  it("create 201 v1, update 200 next version, list by key without values, read, delete", async () => {
    const { call, signIn } = fresh()
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const S = "/api/projects/app/environments/development/secrets"
    expect(await call("POST", S, { as: ada.as, body: { key: "B", value: "x" } })).toMatchObject({
      status: 201,
      body: { ok: true, action: "created", version: 1 },
    })
    expect(await call("POST", S, { as: ada.as, body: { key: "B", value: "y" } })).toMatchObject({
      status: 200,
      body: { ok: true, action: "updated", version: 2 },
    })
    await call("POST", S, { as: ada.as, body: { key: "A", value: "" } })
    const list = await call("GET", S, { as: ada.as })
    expect(list.body.secrets.map((s: { key: string }) => s.key)).toEqual(["A", "B"])
    expect(list.text).not.toContain('"value"')
    expect(Object.keys(list.body.secrets[1]).sort()).toEqual([
      "createdAt",
      "empty",
      "id",
      "key",
      "updatedAt",
      "version",
    ])
    // Whether a value is empty is told without it: A was saved empty, B with a value.
    expect(list.body.secrets.map((s: { empty: boolean }) => s.empty)).toEqual([true, false])
    const read = await call("GET", `${S}/B`, { as: ada.as })
    expect(read.body).toEqual({ secret: { ...list.body.secrets[1], value: "y" } })
    expect((await call("GET", `${S}/NOPE`, { as: ada.as })).status).toBe(404)
    expect((await call("DELETE", `${S}/B`, { as: ada.as })).body).toEqual({ ok: true })
    expect((await call("DELETE", `${S}/B`, { as: ada.as })).status).toBe(404)
    expect((await call("GET", `${S}/B/versions`, { as: ada.as })).status).toBe(404)
  })

  // A secret's read and write answer with their headers held as a plain record (`presetResponse`); every way out
  // must carry them still, and a header set through the context (CORS here) must reach the answer beside them.
  it("answers a secret's read and write with the preset headers on every way out, with CORS or without", async () => {
    const origin = "https://dash.example.com"
    const expectPreset = (answer: { headers: Headers }) => {
      expect(answer.headers.get("x-request-id")).toBe(TEST_REQUEST_ID)
      expect(answer.headers.get("cache-control")).toBe("no-store")
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff")
      expect(answer.headers.get("content-security-policy")).toContain("default-src 'none'")
      expect(answer.headers.get("content-type")).toBe("application/json")
    }
    // Without CORS nothing sets a header through the context: the answers are made from the held record alone.
    for (const env of [{}, { CORS_ORIGIN: origin }] as Array<Record<string, string>>) {
      const cors = "CORS_ORIGIN" in env
      const { call, signIn } = fresh(env)
      const ada = await signIn("ada@example.com")
      await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
      const S = "/api/projects/app/environments/development/secrets"
      const created = await call("POST", S, { as: ada.as, body: { key: "K", value: "v1" } })
      expect(created).toMatchObject({ status: 201, body: { ok: true, action: "created", version: 1 } })
      expectPreset(created)
      // A write from another origin with a cookie is refused where that origin is not listed (sameOrigin.ts).
      const updated = await call("POST", S, {
        as: ada.as,
        body: { key: "K", value: "v2" },
        headers: cors ? { origin } : {},
      })
      expect(updated).toMatchObject({ status: 200, body: { version: 2 } })
      expectPreset(updated)
      expect(updated.headers.get("access-control-allow-origin")).toBe(cors ? origin : null)
      const read = await call("GET", `${S}/K`, { as: ada.as })
      expect(read).toMatchObject({ status: 200, body: { secret: { key: "K", value: "v2", version: 2 } } })
      expectPreset(read)
      const fromOrigin = await call("GET", `${S}/K`, { as: ada.as, headers: { origin } })
      expect(fromOrigin.headers.get("access-control-allow-origin")).toBe(cors ? origin : null)
      expectPreset(fromOrigin)
      for (const refused of [
        await call("GET", `${S}/NOPE`, { as: ada.as }),
        await call("GET", `${S}/K`),
        await call("POST", S, { as: ada.as, body: { key: "bad key", value: "x" } }),
      ]) {
        expect(refused.status).toBeGreaterThanOrEqual(400)
        expect(refused.body.error).toEqual(expect.any(String))
        expectPreset(refused)
      }
    }
  })

  it("keeps hard values exactly; 413 above 64 KiB; 400 for bad keys and unpaired surrogates", async () => {
    const { call, signIn } = fresh()
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const S = "/api/projects/app/environments/development/secrets"
    const values = [
      "",
      "  spaced  ",
      "multi\nline\r\nvalue",
      "ünïcødé ✓ 🎉",
      `'"$HOME$(id)\`id\`\\`,
      "a=b#c",
      "x".repeat(65536),
    ]
    for (const [i, value] of values.entries()) {
      expect((await call("POST", S, { as: ada.as, body: { key: `K${i}`, value } })).status).toBe(201)
      expect((await call("GET", `${S}/K${i}`, { as: ada.as })).body.secret.value).toBe(value)
    }
    const big = await call("POST", S, { as: ada.as, body: { key: "BIG", value: "é".repeat(32769) } })
    expect(big).toMatchObject({ status: 413, body: { error: expect.stringContaining("65538 bytes") } })
    expect(big.text).not.toContain("éé")
    expect((await call("POST", S, { as: ada.as, body: '{"key":"L","value":"a\\ud800b"}' })).status).toBe(400)
    for (const key of ["", "..", "a/b", "a b", "ключ", "K".repeat(257), "ＫＥＹ"]) {
      expect([key, (await call("POST", S, { as: ada.as, body: { key, value: "v" } })).status]).toEqual([key, 400])
    }
    expect((await call("POST", S, { as: ada.as, body: { key: "K".repeat(256), value: "v" } })).status).toBe(201)
    const listed = await call("GET", S, { as: ada.as })
    expect(listed.body.secrets.map((s: { key: string }) => s.key)).not.toContain("BIG")
  })

  it("deletes on an expectedVersion only: else 409 with the version now and nothing deleted; 400 for a non-version", async () => {
    const { call, signIn } = fresh()
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const S = "/api/projects/app/environments/development/secrets"
    for (const value of ["one", "two"]) await call("POST", S, { as: ada.as, body: { key: "TOKEN", value } })
    const remove = (expectedVersion: string) =>
      call("DELETE", `${S}/TOKEN?expectedVersion=${expectedVersion}`, { as: ada.as })
    const stale = await remove("1")
    expect(stale).toMatchObject({
      status: 409,
      body: { error: "TOKEN is at version 2, not 1: it changed since it was read", currentVersion: 2 },
    })
    expect(stale.text).not.toContain("two")
    for (const text of ["0", "-1", "1.5", "01", "2e0", "", "x", "9007199254740992"]) {
      expect([text, (await remove(text)).status]).toEqual([text, 400])
    }
    expect((await remove("x")).body).toEqual({
      error: "expectedVersion must be a whole number from 1 to 9007199254740991",
    })
    expect((await remove("3")).status).toBe(409)
    // Refused deletions changed nothing and recorded nothing.
    expect((await call("GET", `${S}/TOKEN`, { as: ada.as })).body.secret).toMatchObject({ value: "two", version: 2 })
    const deleted = async () =>
      (await call("GET", "/api/projects/app/audit-log?action=secret.deleted", { as: ada.as })).body.auditLog.length
    expect(await deleted()).toBe(0)
    expect(await remove("2")).toMatchObject({ status: 200, body: { ok: true } })
    expect(await deleted()).toBe(1)
    expect((await remove("2")).status).toBe(404)
  })

  it("writes on an expectedVersion only: else 409 with the version now and nothing written; 400 for a non-version", async () => {
    const { call, signIn } = fresh()
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const S = "/api/projects/app/environments/development/secrets"
    const write = (value: string, expectedVersion: unknown) =>
      call("POST", S, { as: ada.as, body: { key: "DATABASE_URL", value, expectedVersion } })
    expect(await write("postgres://one", 0)).toMatchObject({ status: 201, body: { action: "created", version: 1 } })
    expect(await write("postgres://mine", 0)).toMatchObject({
      status: 409,
      body: { error: "DATABASE_URL exists already (version 1): it was expected not to exist", currentVersion: 1 },
    })
    expect(await write("postgres://two", 1)).toMatchObject({ status: 200, body: { action: "updated", version: 2 } })
    const stale = await write("postgres://mine", 1)
    expect(stale).toMatchObject({
      status: 409,
      body: { error: "DATABASE_URL is at version 2, not 1: it changed since it was read", currentVersion: 2 },
    })
    expect(stale.text).not.toContain("postgres://")
    for (const expectedVersion of [-1, 1.5, "2", null, true, 2 ** 53, "NaN"]) {
      expect([expectedVersion, (await write("postgres://bad", expectedVersion)).status]).toEqual([expectedVersion, 400])
    }
    expect((await write("postgres://bad", 1.5)).body).toEqual({
      error:
        'Invalid "expectedVersion" in the request body: Expected a whole number from 0 to 9007199254740991: the ' +
        "version the secret is at, 0 for none",
    })
    const huge = '{"key":"DATABASE_URL","value":"postgres://bad","expectedVersion":1e400}'
    expect((await call("POST", S, { as: ada.as, body: huge })).status).toBe(400)
    expect((await call("GET", `${S}/DATABASE_URL`, { as: ada.as })).body.secret).toMatchObject({
      value: "postgres://two",
      version: 2,
    })
    const { auditLog } = (await call("GET", "/api/projects/app/audit-log", { as: ada.as })).body
    expect(auditLog.map((entry: { action: string }) => entry.action)).toEqual([
      "secret.read",
      "secret.updated",
      "secret.created",
      "project.created",
    ])
    await call("DELETE", `${S}/DATABASE_URL`, { as: ada.as })
    expect(await write("postgres://mine", 2)).toMatchObject({
      status: 409,
      body: {
        error: "DATABASE_URL does not exist (expected version 2): it was deleted since it was read, or never created",
        currentVersion: 0,
      },
    })
    // Left out, a write lands whatever the version, as before.
    expect(await call("POST", S, { as: ada.as, body: { key: "DATABASE_URL", value: "x" } })).toMatchObject({
      status: 201,
    })
  })

  it("keeps history newest first with authors, reads old versions, restores (audited)", async () => {
    const { call, signIn } = fresh()
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const S = "/api/projects/app/environments/development/secrets"
    await call("POST", S, { as: ada.as, body: { key: "K", value: "first" } })
    await call("POST", S, { as: ada.as, body: { key: "K", value: "second" } })
    const versions = await call("GET", `${S}/K/versions`, { as: ada.as })
    expect(versions.body).toEqual({
      versions: [
        {
          version: 2,
          createdAt: expect.stringMatching(ISO),
          userId: ada.userId,
          userEmail: "ada@example.com",
          restoredFrom: null,
        },
        {
          version: 1,
          createdAt: expect.stringMatching(ISO),
          userId: ada.userId,
          userEmail: "ada@example.com",
          restoredFrom: null,
        },
      ],
    })
    expect((await call("GET", `${S}/K/versions/1`, { as: ada.as })).body).toEqual({
      secret: { key: "K", value: "first", version: 1, createdAt: expect.stringMatching(ISO) },
    })
    expect((await call("GET", `${S}/K/versions/3`, { as: ada.as })).status).toBe(404)
    expect((await call("GET", `${S}/K/versions/abc`, { as: ada.as })).status).toBe(400)
    expect((await call("POST", `${S}/K/versions/0/restore`, { as: ada.as })).status).toBe(400)
    // A well-formed number past any stored version is a version that does not exist, however large.
    for (const past of ["1000000000", "2147483648", String(Number.MAX_SAFE_INTEGER)]) {
      expect(await call("GET", `${S}/K/versions/${past}`, { as: ada.as })).toMatchObject({
        status: 404,
        body: { error: "Version not found" },
      })
      expect((await call("POST", `${S}/K/versions/${past}/restore`, { as: ada.as })).status).toBe(404)
    }
    expect((await call("GET", `${S}/K/versions/99999999999999999`, { as: ada.as })).body).toEqual({
      error: "Version must be a whole number from 1 to 9007199254740991",
    })
    expect((await call("POST", `${S}/K/versions/1/restore`, { as: ada.as })).body).toEqual({
      ok: true,
      action: "restored",
      version: 3,
    })
    expect((await call("GET", `${S}/K`, { as: ada.as })).body.secret).toMatchObject({ value: "first", version: 3 })
    // The history tells the restore from the writes around it; a write after it is an ordinary one again.
    await call("POST", S, { as: ada.as, body: { key: "K", value: "fourth" } })
    const after = await call("GET", `${S}/K/versions`, { as: ada.as })
    expect(
      after.body.versions.map((v: { version: number; restoredFrom: number | null }) => [v.version, v.restoredFrom]),
    ).toEqual([
      [4, null],
      [3, 1],
      [2, null],
      [1, null],
    ])
    const log = await call("GET", "/api/projects/app/audit-log?limit=4", { as: ada.as })
    expect(log.body.auditLog.map((e: { action: string; targetKey: string }) => [e.action, e.targetKey])).toEqual([
      ["secret.updated", "K"],
      ["secret.read", "K"],
      ["secret.restored", "K@1"],
      ["secret.read", "K@1"],
    ])
  })

  it("exports .env as a text/plain attachment and JSON, both audited", async () => {
    const { call, signIn } = fresh()
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const S = "/api/projects/app/environments/production/secrets"
    await call("POST", S, { as: ada.as, body: { key: "URL", value: "https://x.example/?a=b" } })
    await call("POST", S, { as: ada.as, body: { key: "QUOTE", value: "it's" } })
    await call("POST", S, { as: ada.as, body: { key: "not-a-shell-name", value: "v" } })
    const dotenv = await call("GET", `${S}/.env`, { as: ada.as })
    expect(dotenv.status).toBe(200)
    expect(dotenv.headers.get("content-type")).toMatch(/^text\/plain/)
    expect(dotenv.headers.get("content-disposition")).toBe('attachment; filename="production.env"')
    expect(dotenv.text).toBe(`QUOTE="it's"\nURL='https://x.example/?a=b'\nnot-a-shell-name=v\n`)
    const json = await call("GET", `${S}/json`, { as: ada.as })
    expect(json.body).toEqual({ QUOTE: "it's", URL: "https://x.example/?a=b", "not-a-shell-name": "v" })
    const log = await call("GET", "/api/projects/app/audit-log?limit=2", { as: ada.as })
    expect(log.body.auditLog.map((e: { action: string; targetKey: string }) => [e.action, e.targetKey])).toEqual([
      ["secrets.exported", "json"],
      ["secrets.exported", "dotenv"],
    ])
  })

  /** A project of ada's with one secret, `TOKEN`, and the size of its audit log. */
  const oneSecret = async () => {
    const { call, signIn } = fresh()
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const S = "/api/projects/app/environments/production/secrets"
    await call("POST", S, { as: ada.as, body: { key: "TOKEN", value: "t" } })
    const auditSize = async (): Promise<number> =>
      (await call("GET", "/api/projects/app/audit-log?limit=100", { as: ada.as })).body.auditLog.length
    return { call, ada, S, auditSize }
  }

  it("refuses to answer values to a cookie on a request from another site or origin of it (403, nothing audited); keys pass", async () => {
    const { call, ada, S, auditSize } = await oneSecret()
    const before = await auditSize()
    const crossSite = { "sec-fetch-site": "cross-site" }
    for (const path of [`${S}/.env`, `${S}/json`, `${S}/TOKEN`, `${S}/TOKEN/versions/1`]) {
      expect(await call("GET", path, { as: ada.as, headers: crossSite })).toMatchObject({
        status: 403,
        body: { error: "Secret values cannot be read by a request from another site" },
      })
    }
    expect(await auditSize()).toBe(before)
    // Lists hold no values, and a browser marks its own pages' requests same-origin (or none, for a typed URL).
    expect((await call("GET", S, { as: ada.as, headers: crossSite })).status).toBe(200)
    for (const site of ["same-origin", "none"]) {
      expect((await call("GET", `${S}/TOKEN`, { as: ada.as, headers: { "sec-fetch-site": site } })).status).toBe(200)
    }
    // The websec probe's finding: another origin of the same site (a sibling subdomain, another port of localhost)
    // gets the cookie on a link or an image too, and exported in the person's name; only the service's own listed
    // origins read from there.
    const readSoFar = await auditSize()
    for (const origin of [undefined, "https://wiki.coffer.example"]) {
      const sameSite = { "sec-fetch-site": "same-site", ...(origin === undefined ? {} : { origin }) }
      for (const path of [`${S}/.env`, `${S}/TOKEN`])
        expect((await call("GET", path, { as: ada.as, headers: sameSite })).status).toBe(403)
    }
    expect(await auditSize()).toBe(readSoFar)
    const listed = { "sec-fetch-site": "same-site", origin: "https://coffer.example" }
    expect((await call("GET", `${S}/TOKEN`, { as: ada.as, headers: listed })).status).toBe(200)
    const { key } = (
      await call("POST", "/api/api-keys", { as: ada.as, body: { name: "ci", projectSlug: "app", scope: "read" } })
    ).body
    expect((await call("GET", `${S}/.env`, { as: { key }, headers: crossSite })).text).toBe("TOKEN=t\n")
  })

  it("answers HEAD on a value's routes with 405, reading and auditing nothing", async () => {
    const { call, ada, S, auditSize } = await oneSecret()
    const before = await auditSize()
    const allows: ReadonlyArray<readonly [string, string]> = [
      // A secret may be named `.env` or `json`: `DELETE` of the path deletes it (only its `GET` is the export).
      [`${S}/.env`, "GET, DELETE, OPTIONS"],
      [`${S}/json`, "GET, DELETE, OPTIONS"],
      [`${S}/TOKEN`, "GET, DELETE, OPTIONS"],
      [`${S}/TOKEN/versions/1`, "GET, OPTIONS"],
    ]
    for (const [path, allow] of allows) {
      const answer = await call("HEAD", path, { as: ada.as })
      expect(answer.status).toBe(405)
      expect(answer.headers.get("allow")).toBe(allow)
    }
    expect(await auditSize()).toBe(before)
    // A list holds no value: HEAD is answered as GET is.
    expect((await call("HEAD", S, { as: ada.as })).status).toBe(200)
  })

  it("never offers HEAD where it is refused: every 405's Allow and the OPTIONS's Allow name the same methods", async () => {
    const { call, ada, S } = await oneSecret()
    for (const [path, methods] of [
      // DELETE: a secret may be named `.env` or `json` (`DELETE /:key`), only its GET is the export.
      [`${S}/.env`, "GET, DELETE, OPTIONS"],
      [`${S}/json`, "GET, DELETE, OPTIONS"],
      [`${S}/TOKEN`, "GET, DELETE, OPTIONS"],
      [`${S}/TOKEN/versions/1`, "GET, OPTIONS"],
      [S, "GET, HEAD, POST, OPTIONS"],
    ] as const) {
      const refused = await call("PUT", path, { as: ada.as, body: {} })
      expect(refused.status, path).toBe(405)
      expect(refused.headers.get("allow"), path).toBe(methods)
      expect(refused.body, path).toEqual({ error: `This path does not answer PUT; it answers ${methods}` })
      const options = await call("OPTIONS", path, { as: ada.as })
      expect(options.status, path).toBe(204)
      expect(options.headers.get("allow"), path).toBe(methods)
      // A refused HEAD, answered by the route itself, names them too.
      if (!methods.includes("HEAD"))
        expect((await call("HEAD", path, { as: ada.as })).headers.get("allow")).toBe(methods)
    }
  })
})

describe("people and invites", () => {
  it("invites with a one-time token and link; accept; 409 when already in (still usable); 404 once used", async () => {
    const { call, signIn } = fresh()
    const owner = await signIn("owner@example.com")
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: owner.as, body: { name: "App" } })
    const created = await call("POST", "/api/projects/app/invites", { as: owner.as })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      invite: {
        id: expect.any(String),
        role: "read",
        createdAt: expect.stringMatching(ISO),
        expiresAt: expect.stringMatching(ISO),
      },
      token: expect.stringMatching(/^cfi_[A-Za-z0-9_-]{43}$/),
      url: `https://coffer.example/invite#${created.body.token}`,
    })
    expect(Date.parse(created.body.invite.expiresAt) - Date.parse(created.body.invite.createdAt)).toBe(7 * DAY)
    const listed = await call("GET", "/api/projects/app/invites", { as: owner.as })
    expect(listed.body).toEqual({ invites: [created.body.invite] })
    expect(listed.text).not.toContain(created.body.token)
    const accept = (as: { cookie: string }) =>
      call("POST", "/api/invites/accept", { as, body: { token: created.body.token } })
    expect(await accept(owner.as)).toMatchObject({ status: 409, body: { error: expect.any(String) } })
    expect(await accept(ada.as)).toMatchObject({ status: 200, body: { project: { slug: "app", role: "read" } } })
    const bob = await signIn("bob@example.com")
    expect((await accept(bob.as)).status).toBe(404)
    expect((await call("GET", "/api/projects/app/invites", { as: owner.as })).body).toEqual({ invites: [] })
    const members = await call("GET", "/api/projects/app/members", { as: ada.as })
    expect(members.body.members).toEqual([
      { userId: owner.userId, email: "owner@example.com", role: "owner", createdAt: expect.stringMatching(ISO) },
      { userId: ada.userId, email: "ada@example.com", role: "read", createdAt: expect.stringMatching(ISO) },
    ])
  })

  it("answers 404 for withdrawn and expired invites, and for tokens that name none", async () => {
    const { call, signIn, clock } = fresh()
    const owner = await signIn("owner@example.com")
    await call("POST", "/api/projects", { as: owner.as, body: { name: "App" } })
    const withdrawn = (await call("POST", "/api/projects/app/invites", { as: owner.as, body: { role: "write" } })).body
    expect((await call("DELETE", `/api/projects/app/invites/${withdrawn.invite.id}`, { as: owner.as })).body).toEqual({
      ok: true,
    })
    expect((await call("DELETE", `/api/projects/app/invites/${withdrawn.invite.id}`, { as: owner.as })).status).toBe(
      404,
    )
    const expiring = (await call("POST", "/api/projects/app/invites", { as: owner.as, body: {} })).body
    clock.advance(7 * DAY)
    // Signed in now, since sessions too last seven days.
    const ada = await signIn("ada@example.com")
    for (const token of [withdrawn.token, expiring.token, "cfi_nothing", 42]) {
      const result = await call("POST", "/api/invites/accept", { as: ada.as, body: { token } })
      expect(result.status).toBe(token === 42 ? 400 : 404)
    }
    expect((await call("POST", "/api/projects/app/invites", { as: ada.as, body: { role: "read" } })).status).toBe(404)
    const owner2 = await signIn("owner@example.com")
    expect((await call("POST", "/api/projects/app/invites", { as: owner2.as, body: { role: "owner" } })).status).toBe(
      400,
    )
  })

  it("changes roles and removes people; removal takes that person's keys for the project", async () => {
    const { call, signIn } = fresh()
    const owner = await signIn("owner@example.com")
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: owner.as, body: { name: "App" } })
    const { token } = (await call("POST", "/api/projects/app/invites", { as: owner.as, body: { role: "write" } })).body
    await call("POST", "/api/invites/accept", { as: ada.as, body: { token } })
    const key = (
      await call("POST", "/api/api-keys", { as: ada.as, body: { name: "ci", projectSlug: "app", scope: "write" } })
    ).body
    const S = "/api/projects/app/environments/development/secrets"
    expect((await call("POST", S, { as: { key: key.key }, body: { key: "K", value: "v" } })).status).toBe(201)
    expect(
      (await call("PATCH", `/api/projects/app/members/${ada.userId}`, { as: owner.as, body: { role: "read" } })).body,
    ).toEqual({ ok: true })
    expect((await call("POST", S, { as: { key: key.key }, body: { key: "K", value: "w" } })).status).toBe(403)
    // The key's identity says so: its scope is still write, its holder a read member now.
    expect((await call("GET", "/api/auth/me", { as: { key: key.key } })).body.apiKey).toMatchObject({
      scope: "write",
      holderRole: "read",
    })
    expect(
      (await call("PATCH", `/api/projects/app/members/${ada.userId}`, { as: owner.as, body: { role: "admin" } }))
        .status,
    ).toBe(400)
    expect(
      (await call("PATCH", `/api/projects/app/members/${owner.userId}`, { as: owner.as, body: { role: "read" } }))
        .status,
    ).toBe(400)
    expect(
      (await call("PATCH", "/api/projects/app/members/nobody", { as: owner.as, body: { role: "read" } })).status,
    ).toBe(404)
    expect((await call("DELETE", `/api/projects/app/members/${owner.userId}`, { as: owner.as })).status).toBe(400)
    expect((await call("DELETE", `/api/projects/app/members/${ada.userId}`, { as: ada.as })).body).toEqual({ ok: true })
    expect((await call("GET", S, { as: { key: key.key } })).status).toBe(401)
    expect((await call("GET", "/api/projects/app", { as: ada.as })).status).toBe(404)
    // Her key went with her, logged as deleted by her (seed 001 §2: the key's name).
    const log = await call("GET", "/api/projects/app/audit-log?limit=3", { as: owner.as })
    expect(
      log.body.auditLog.map((e: { action: string; targetKey: string; userEmail: string }) => [
        e.action,
        e.targetKey,
        e.userEmail,
      ]),
    ).toEqual([
      ["api_key.deleted", "ci", "ada@example.com"],
      ["member.removed", "ada@example.com", "ada@example.com"],
      ["member.updated", "ada@example.com:read", "owner@example.com"],
    ])
  })

  it("answers a change to the role someone already has with ok, and writes nothing to the log", async () => {
    const { call, signIn } = fresh()
    const owner = await signIn("owner@example.com")
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: owner.as, body: { name: "App" } })
    const { token } = (await call("POST", "/api/projects/app/invites", { as: owner.as, body: { role: "write" } })).body
    await call("POST", "/api/invites/accept", { as: ada.as, body: { token } })
    const log = async () => (await call("GET", "/api/projects/app/audit-log", { as: owner.as })).body.auditLog
    const before = await log()
    const member = `/api/projects/app/members/${ada.userId}`
    expect(await call("PATCH", member, { as: owner.as, body: { role: "write" } })).toMatchObject({
      status: 200,
      body: { ok: true },
    })
    // A log reader would have read "member.updated ada@example.com:write" as a promotion that never happened.
    expect(await log()).toEqual(before)
    expect((await call("GET", "/api/projects/app/members", { as: owner.as })).body.members[1]).toMatchObject({
      role: "write",
    })
    // A real change is still written, once; someone not in the project is still 404.
    await call("PATCH", member, { as: owner.as, body: { role: "read" } })
    expect(
      (await log()).slice(0, 1).map((e: { action: string; targetKey: string }) => [e.action, e.targetKey]),
    ).toEqual([["member.updated", "ada@example.com:read"]])
    expect((await log()).length).toBe(before.length + 1)
    expect(
      (await call("PATCH", "/api/projects/app/members/nobody", { as: owner.as, body: { role: "read" } })).status,
    ).toBe(404)
  })
})

describe("API keys", () => {
  it("create (201), list, rotate, delete; the raw key appears only at creation and rotation", async () => {
    const { call, signIn } = fresh()
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const created = await call("POST", "/api/api-keys", {
      as: ada.as,
      body: { name: "deploy", projectSlug: "app", scope: "write", expiresInDays: 30 },
    })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^cfk_[A-Za-z0-9_-]{43}$/),
      prefix: created.body.key.slice(0, 12),
      name: "deploy",
      scope: "write",
      expiresAt: expect.stringMatching(ISO),
    })
    const list = await call("GET", "/api/api-keys?project=app", { as: ada.as })
    expect(list.body.apiKeys).toEqual([
      {
        id: created.body.id,
        name: "deploy",
        keyPrefix: created.body.prefix,
        scope: "write",
        projectId: expect.any(String),
        userId: ada.userId,
        userEmail: "ada@example.com",
        lastUsedAt: null,
        expiresAt: created.body.expiresAt,
        createdAt: expect.stringMatching(ISO),
      },
    ])
    expect(list.text).not.toContain(created.body.key)
    expect((await call("GET", "/api/api-keys?project=nope", { as: ada.as })).status).toBe(404)
    const rotated = await call("POST", `/api/api-keys/${created.body.id}/rotate`, { as: ada.as })
    expect(rotated.body).toMatchObject({
      id: created.body.id,
      name: "deploy",
      scope: "write",
      expiresAt: created.body.expiresAt,
    })
    expect((await call("GET", "/api/projects", { as: { key: created.body.key } })).status).toBe(401)
    expect((await call("GET", "/api/projects", { as: { key: rotated.body.key } })).status).toBe(200)
    const lastUsed = (await call("GET", "/api/api-keys", { as: ada.as })).body.apiKeys[0].lastUsedAt
    expect(lastUsed).toMatch(ISO)
    expect((await call("DELETE", `/api/api-keys/${created.body.id}`, { as: ada.as })).body).toEqual({ ok: true })
    expect((await call("GET", "/api/projects", { as: { key: rotated.body.key } })).status).toBe(401)
    expect((await call("DELETE", `/api/api-keys/${created.body.id}`, { as: ada.as })).status).toBe(404)
    expect((await call("POST", `/api/api-keys/${created.body.id}/rotate`, { as: ada.as })).status).toBe(404)
  })

  it("tells a request made with a key that expires when, on every answer, the preset ones and refusals too", async () => {
    const { call, signIn } = fresh()
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const key = async (name: string, expiresInDays?: number) =>
      (
        await call("POST", "/api/api-keys", {
          as: ada.as,
          body: { name, projectSlug: "app", scope: "write", ...(expiresInDays === undefined ? {} : { expiresInDays }) },
        })
      ).body as { key: string; expiresAt: string | null }
    const expiring = await key("ci", 5)
    const S = "/api/projects/app/environments/development/secrets"
    const answers = [
      await call("GET", "/api/projects", { as: { key: expiring.key } }),
      // The held record of a secret's write and read (`presetResponse`), and a refusal after the key was checked.
      await call("POST", S, { as: { key: expiring.key }, body: { key: "K", value: "v" } }),
      await call("GET", `${S}/K`, { as: { key: expiring.key } }),
      await call("GET", `${S}/NOPE`, { as: { key: expiring.key } }),
    ]
    expect(answers.map((answer) => answer.status)).toEqual([200, 201, 200, 404])
    for (const [index, answer] of answers.entries())
      expect(answer.headers.get("coffer-api-key-expires"), String(index)).toBe(expiring.expiresAt)
    // A script on a listed origin may read it.
    const origin = "https://dash.example.com"
    const listed = fresh({ CORS_ORIGIN: origin })
    const bea = await listed.signIn("bea@example.com")
    await listed.call("POST", "/api/projects", { as: bea.as, body: { name: "App" } })
    const created = await listed.call("POST", "/api/api-keys", {
      as: bea.as,
      body: { name: "browser", projectSlug: "app", scope: "read", expiresInDays: 5 },
    })
    const fromOrigin = await listed.call("GET", "/api/projects", { as: { key: created.body.key }, headers: { origin } })
    expect(fromOrigin.headers.get("coffer-api-key-expires")).toBe(created.body.expiresAt)
    expect(fromOrigin.headers.get("access-control-expose-headers")).toContain("Coffer-Api-Key-Expires")
    // A key that never expires, a session, and a refused key say nothing of it.
    const forever = await key("forever")
    expect(forever.expiresAt).toBeNull()
    for (const answer of [
      await call("GET", "/api/projects", { as: { key: forever.key } }),
      await call("GET", "/api/projects", { as: ada.as }),
      await call("GET", "/api/projects", { as: { key: `cfk_${"x".repeat(43)}` } }),
    ])
      expect(answer.headers.get("coffer-api-key-expires")).toBeNull()
  })

  it("checks expiresInDays, scope and names; read members get read keys only", async () => {
    const { call, signIn } = fresh()
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    for (const expiresInDays of [0, 3651, 1.5, -3, "7", null, "Infinity", "NaN"]) {
      const result = await call("POST", "/api/api-keys", {
        as: ada.as,
        body: { name: "k", projectSlug: "app", expiresInDays },
      })
      expect([expiresInDays, result.status]).toEqual([expiresInDays, 400])
    }
    expect(
      (await call("POST", "/api/api-keys", { as: ada.as, body: { name: "k", projectSlug: "app", expiresInDays: 1.5 } }))
        .body,
    ).toEqual({ error: 'Invalid "expiresInDays" in the request body: Expected a whole number of days from 1 to 3650' })
    // JSON's one way to a non-finite number: a literal too large for a double, which parses as Infinity.
    const huge = '{"name":"k","projectSlug":"app","expiresInDays":1e400}'
    expect((await call("POST", "/api/api-keys", { as: ada.as, body: huge })).status).toBe(400)
    for (const body of [
      { name: "k", projectSlug: "app", scope: "admin" },
      { name: "", projectSlug: "app" },
      { projectSlug: "app" },
      { name: "k" },
    ]) {
      expect((await call("POST", "/api/api-keys", { as: ada.as, body })).status).toBe(400)
    }
    const expiring = await call("POST", "/api/api-keys", {
      as: ada.as,
      body: { name: "k", projectSlug: "app", expiresInDays: 1 },
    })
    expect(expiring.status).toBe(201)
    expect(
      (await call("POST", `/api/api-keys/${expiring.body.id}/rotate`, { as: ada.as, body: { expiresInDays: 0 } }))
        .status,
    ).toBe(400)
    expect((await call("POST", "/api/api-keys", { as: ada.as, body: { name: "k", projectSlug: "nope" } })).status).toBe(
      404,
    )
  })

  it("answers 401 'API key has expired' for expired keys, and 401 for unknown or malformed ones", async () => {
    const { call, signIn, clock } = fresh()
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const { key } = (
      await call("POST", "/api/api-keys", { as: ada.as, body: { name: "k", projectSlug: "app", expiresInDays: 1 } })
    ).body
    expect((await call("GET", "/api/projects/app", { as: { key } })).status).toBe(200)
    clock.advance(DAY)
    expect(await call("GET", "/api/projects/app", { as: { key } })).toEqual(
      expect.objectContaining({ status: 401, body: { error: "API key has expired" } }),
    )
    expect((await call("GET", "/api/projects/app", { as: { key: `cfk_${"a".repeat(43)}` } })).body).toEqual({
      error: "Invalid API key",
    })
    // A header of another form says what the form must be: the key in it may be fine.
    for (const authorization of ["Basic abc", key, `Token ${key}`, "Bearer", `Bearer ${key} x`]) {
      expect(await call("GET", "/api/projects/app", { headers: { authorization } }), authorization).toMatchObject({
        status: 401,
        body: { error: "Authorization must be Bearer <API key>" },
      })
    }
    // The header decides alone: a bad key is not rescued by a good cookie.
    expect(
      (await call("GET", "/api/projects/app", { headers: { authorization: "Bearer x", cookie: ada.cookie } })).status,
    ).toBe(401)
  })

  it("refuses keys on session-only endpoints with 403", async () => {
    const service = fresh()
    const world = await populate(service)
    const key = world.writeKey
    for (const [method, path, body] of [
      ["GET", "/api/projects/alpha/members"],
      ["GET", "/api/api-keys"],
      ["POST", "/api/api-keys", { name: "k", projectSlug: "alpha" }],
      ["POST", `/api/api-keys/x/rotate`],
      ["DELETE", "/api/api-keys/x"],
      ["POST", "/api/invites/accept", { token: "cfi_x" }],
      ["POST", "/api/projects", { name: "New" }],
    ] as const) {
      const result = await service.call(method, path, { as: key, body })
      expect([method, path, result.status]).toEqual([method, path, 403])
    }
  })

  it("refuses a logout made with an API key (403, saying how a key is revoked) and ends nothing, not even a cookie's session", async () => {
    const service = fresh()
    const { call } = service
    const world = await populate(service)
    const refusal = {
      status: 403,
      body: {
        error:
          "Logout ends a browser session and takes no Authorization header: nothing was ended; an API key stays " +
          "valid until it is deleted (DELETE /api/api-keys/{id}, or the API keys page)",
      },
    }
    const me = (as: Parameters<typeof call>[2]) => call("GET", "/api/auth/me", as)
    expect(await call("POST", "/api/auth/logout", { as: world.writeKey })).toMatchObject(refusal)
    // The header names the caller alone: the holder's session cookie beside it is not ended, nor cleared.
    const both = await call("POST", "/api/auth/logout", {
      as: world.writeKey,
      headers: { cookie: world.writer.cookie },
    })
    expect(both).toMatchObject(refusal)
    expect(both.headers.getSetCookie()).toEqual([])
    // A header that is no bearer key is refused as well: the request was not a browser's.
    expect(
      await call("POST", "/api/auth/logout", { headers: { authorization: "Basic eDp5", cookie: world.writer.cookie } }),
    ).toMatchObject({ status: 403 })
    expect((await me({ as: world.writeKey })).status).toBe(200)
    expect((await me({ as: world.writer.as })).status).toBe(200)
    expect((await call("GET", world.secrets, { as: world.writeKey })).status).toBe(200)
    // Without a header, the browser's logout is as it was.
    expect(await call("POST", "/api/auth/logout", { as: world.writer.as })).toMatchObject({
      status: 200,
      body: { ok: true },
    })
    expect((await me({ as: world.writer.as })).status).toBe(401)
  })
})

describe("audit log", () => {
  it("records every action with targetKey, ipAddress and ISO time, newest first; limit and offset checked", async () => {
    const service = fresh()
    const { call, signIn } = service
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", {
      as: ada.as,
      body: { name: "App" },
      headers: { [CLIENT_HEADER]: "198.51.100.23" },
    })
    const log = await call("GET", "/api/projects/app/audit-log", { as: ada.as })
    expect(log.body).toEqual({
      auditLog: [
        {
          id: expect.any(String),
          userId: ada.userId,
          userEmail: "ada@example.com",
          projectId: expect.any(String),
          environmentId: null,
          action: "project.created",
          targetKey: "app",
          ipAddress: "198.51.100.23",
          createdAt: expect.stringMatching(ISO),
          apiKey: null,
        },
      ],
    })
    for (const query of ["limit=0", "limit=501", "limit=abc", "limit=1.5", "offset=-1", "limit=", "offset=1e3"]) {
      const result = await call("GET", `/api/projects/app/audit-log?${query}`, { as: ada.as })
      expect([query, result.status]).toEqual([query, 400])
    }
    expect((await call("GET", "/api/projects/app/audit-log?limit=500&offset=0", { as: ada.as })).status).toBe(200)
    expect((await call("GET", "/api/projects/app/audit-log?offset=1", { as: ada.as })).body).toEqual({ auditLog: [] })
  })

  it("names the API key a person acted through, with its name then; null with a session; kept after it is deleted", async () => {
    const service = fresh()
    const { call, signIn } = service
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const secrets = "/api/projects/app/environments/development/secrets"
    await call("POST", secrets, { as: ada.as, body: { key: "DB_URL", value: "one" } })
    const created = await call("POST", "/api/api-keys", {
      as: ada.as,
      body: { name: "ci-deploy", projectSlug: "app", scope: "write" },
    })
    const { id, key } = created.body
    // A read (the audited read by path), a write and an export, each through the key; then a read with the session.
    expect((await call("GET", `${secrets}/DB_URL`, { as: { key } })).status).toBe(200)
    expect((await call("POST", secrets, { as: { key }, body: { key: "DB_URL", value: "two" } })).status).toBe(200)
    expect((await call("GET", `${secrets}/json`, { as: { key } })).status).toBe(200)
    await call("GET", `${secrets}/DB_URL`, { as: ada.as })
    expect((await call("DELETE", `/api/api-keys/${id}`, { as: ada.as })).status).toBe(200)
    const log = (await call("GET", "/api/projects/app/audit-log", { as: ada.as })).body.auditLog
    const made = { id, name: "ci-deploy" }
    expect(log.map((entry: { action: string; apiKey: unknown }) => [entry.action, entry.apiKey])).toEqual([
      ["api_key.deleted", null],
      ["secret.read", null],
      ["secrets.exported", made],
      ["secret.updated", made],
      ["secret.read", made],
      ["api_key.created", null],
      ["secret.created", null],
      ["project.created", null],
    ])
    // The person is the key's holder, as before: the key is named beside them, not instead.
    expect(log[2]).toMatchObject({ userId: ada.userId, userEmail: "ada@example.com" })
  })

  it("covers every action of seed 001 §2", async () => {
    const service = fresh()
    const world = await populate(service)
    const { call } = service
    const S = world.secrets
    await call("GET", `${S}/EXISTING`, { as: world.owner.as })
    await call("GET", `${S}/EXISTING/versions/1`, { as: world.owner.as })
    await call("POST", `${S}/EXISTING/versions/1/restore`, { as: world.owner.as })
    await call("GET", `${S}/.env`, { as: world.owner.as })
    await call("GET", `${S}/json`, { as: world.owner.as })
    await call("DELETE", `${S}/EXISTING`, { as: world.owner.as })
    await call("POST", "/api/projects/alpha/environments", { as: world.owner.as, body: { name: "qa" } })
    await call("DELETE", "/api/projects/alpha/environments/qa", { as: world.owner.as })
    const keys = (await call("GET", "/api/api-keys?project=alpha", { as: world.writer.as })).body.apiKeys
    await call("POST", `/api/api-keys/${keys[0].id}/rotate`, { as: world.writer.as })
    await call("DELETE", `/api/api-keys/${keys[0].id}`, { as: world.writer.as })
    await call("DELETE", `/api/projects/alpha/invites/${world.inviteId}`, { as: world.owner.as })
    await call("DELETE", `/api/projects/alpha/members/${world.bystander.userId}`, { as: world.owner.as })
    const log = (await call("GET", "/api/projects/alpha/audit-log?limit=500", { as: world.owner.as })).body.auditLog
    const actions = new Set(log.map((entry: { action: string }) => entry.action))
    expect([...actions].sort()).toEqual(
      [
        "project.created",
        "environment.created",
        "environment.deleted",
        "secret.created",
        "secret.updated",
        "secret.read",
        "secret.deleted",
        "secret.restored",
        "secrets.exported",
        "api_key.created",
        "api_key.rotated",
        "api_key.deleted",
        "invite.created",
        "invite.deleted",
        "member.joined",
        "member.updated",
        "member.removed",
      ].sort(),
    )
    const targets = log.map((entry: { action: string; targetKey: string }) => `${entry.action} ${entry.targetKey}`)
    expect(targets).toEqual(
      expect.arrayContaining([
        "secret.read EXISTING@1",
        "secret.restored EXISTING@1",
        "member.joined writer@example.com:write",
        "member.updated demoted@example.com:read",
        "member.removed bystander@example.com",
        "invite.deleted read",
        "api_key.rotated write key",
        "environment.deleted qa",
      ]),
    )
    const times = log.map((entry: { createdAt: string }) => entry.createdAt)
    expect([...times].sort().reverse()).toEqual(times)
  })
})

describe("bad input", () => {
  it("answers 4xx JSON, never 500, and changes nothing", async () => {
    const service = fresh()
    const world = await populate(service)
    const { call } = service
    const as = world.owner.as
    const before = await call("GET", "/api/projects/alpha/audit-log?limit=500", { as })
    const S = world.secrets
    const attempts: Array<[string, string, { body?: unknown; headers?: Record<string, string> }]> = [
      ["POST", S, { body: "{not json" }],
      ["POST", S, { body: "", headers: { "content-type": "application/json" } }],
      ["POST", S, { body: "[]" }],
      ["POST", S, { body: "null" }],
      ["POST", S, { body: { key: 1, value: "v" } }],
      ["POST", S, { body: { key: "K", value: 1 } }],
      ["POST", S, { body: { key: "K", value: null } }],
      ["POST", S, { body: { key: "K" } }],
      ["POST", S, { body: "key=K&value=v", headers: { "content-type": "application/x-www-form-urlencoded" } }],
      ["POST", S, { body: JSON.stringify({ key: "K", value: "x".repeat(1024 * 1024 + 1) }) }],
      ["POST", S, { body: `${"[".repeat(200)}${"]".repeat(200)}` }],
      ["POST", S, { body: { key: "../K", value: "v" } }],
      ["POST", S, { body: { key: "K%2F", value: "v" } }],
      ["POST", `/api/projects/alpha/environments/..%2Fdevelopment/secrets`, { body: { key: "K", value: "v" } }],
      [
        "POST",
        `/api/projects/alpha/environments/development%2F..%2Fstaging/secrets`,
        { body: { key: "K", value: "v" } },
      ],
      ["POST", `/api/projects/%61lpha/environments/ｄｅｖｅｌｏｐｍｅｎｔ/secrets`, { body: { key: "K", value: "v" } }],
      ["POST", "/api/projects/alpha/environments", { body: { name: "development\u0000" } }],
      ["POST", "/api/projects/alpha/environments", { body: { name: "dev\u200belopment" } }],
      ["POST", "/api/projects", { body: { name: ["x"] } }],
      ["PATCH", `/api/projects/alpha/members/${world.writer.userId}`, { body: { role: ["write"] } }],
      ["DELETE", `${S}/..%2F..%2F..`, {}],
      ["DELETE", `${S}/EXISTING%00`, {}],
      ["GET", `${S}/EXISTING/versions/1%2F..`, {}],
      ["POST", `${S}/EXISTING/versions/%31/restore`, { body: {} }],
      ["GET", `/api/projects/alpha/audit-log?limit=%F0%9F`, {}],
      ["DELETE", `/api/projects/alpha%2F..`, {}],
    ]
    for (const [method, path, options] of attempts) {
      const result = await call(method, path, { as, ...options })
      const isRestoreOfOne = path.endsWith("/versions/%31/restore")
      if (isRestoreOfOne) continue
      expect([method, path, result.status >= 400 && result.status < 500, typeof result.body?.error]).toEqual([
        method,
        path,
        true,
        "string",
      ])
    }
    const after = await call("GET", "/api/projects/alpha/audit-log?limit=500", { as })
    // Only the one deliberate restore above (`%31` is `1`) was a real change.
    expect(after.body.auditLog.length - before.body.auditLog.length).toBe(1)
    expect(after.body.auditLog[0]).toMatchObject({ action: "secret.restored", targetKey: "EXISTING@1" })
    expect((await call("GET", "/api/projects/alpha/environments", { as })).body.environments).toHaveLength(3)
  })

  it("limits failed credentials per client with 429 and Retry-After", async () => {
    const service = fresh({ COFFER_RATE_LIMIT: "3" })
    const bad = { key: `cfk_${"b".repeat(43)}` }
    const statuses = []
    for (let i = 0; i < 5; i++) {
      const result = await service.call("GET", "/api/projects", {
        as: bad,
        headers: { [CLIENT_HEADER]: "203.0.113.99" },
      })
      statuses.push(result.status)
      if (result.status === 429) expect(Number(result.headers.get("retry-after"))).toBeGreaterThan(0)
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429])
    // Another client is not affected.
    expect(
      (await service.call("GET", "/api/projects", { as: bad, headers: { [CLIENT_HEADER]: "203.0.113.100" } })).status,
    ).toBe(401)
  })
})

describe("health", () => {
  it("answers /healthz, and /readyz follows the database without a restart", async () => {
    const service = fresh()
    expect((await service.call("GET", "/healthz")).text).toBe("ok")
    service.setReady(false)
    expect(await service.call("GET", "/readyz")).toMatchObject({ status: 503, body: { error: "Service unavailable" } })
    service.setReady(true)
    expect((await service.call("GET", "/readyz")).text).toBe("ok")
  })
})

describe("GET /api/auth/me with an API key", () => {
  it("tells the key's person, project, scope and expiry; a session still gets { user } alone", async () => {
    const { call, signIn, clock } = fresh()
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    await call("POST", "/api/projects", { as: ada.as, body: { name: "Other" } })
    const created = await call("POST", "/api/api-keys", {
      as: ada.as,
      body: { name: "ci", projectSlug: "app", scope: "read", expiresInDays: 2 },
    })
    const me = await call("GET", "/api/auth/me", { as: { key: created.body.key } })
    expect(me.status).toBe(200)
    expect(me.body).toEqual({
      user: { id: ada.userId, email: "ada@example.com" },
      apiKey: {
        id: created.body.id,
        scope: "read",
        holderRole: "owner",
        expiresAt: created.body.expiresAt,
        project: { id: expect.any(String), slug: "app", name: "App" },
      },
    })
    expect(JSON.stringify(me.body)).not.toContain(created.body.key)
    const forever = await call("POST", "/api/api-keys", {
      as: ada.as,
      body: { name: "w", projectSlug: "other", scope: "write" },
    })
    expect((await call("GET", "/api/auth/me", { as: { key: forever.body.key } })).body.apiKey).toMatchObject({
      scope: "write",
      expiresAt: null,
      project: { slug: "other" },
    })
    expect((await call("GET", "/api/auth/me", { as: ada.as })).body).toEqual({
      user: { id: ada.userId, email: "ada@example.com" },
    })
    clock.advance(2 * DAY)
    expect(await call("GET", "/api/auth/me", { as: { key: created.body.key } })).toEqual(
      expect.objectContaining({ status: 401, body: { error: "API key has expired" } }),
    )
    expect((await call("GET", "/api/auth/me", { as: { key: `cfk_${"a".repeat(43)}` } })).status).toBe(401)
    // The header decides alone: a bad key is not rescued by a good cookie.
    const both = await call("GET", "/api/auth/me", {
      headers: { authorization: "Bearer nope", cookie: ada.as.cookie },
    })
    expect(both.status).toBe(401)
  })
})
