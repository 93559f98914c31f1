/**
 * The schemas service (seed 000) end to end, against the built `coffer serve --only schemas`, as a client speaks
 * to it: every row of §3, every endpoint of §4 and every status of §7 that a client can provoke, on SQLite and
 * (when reachable) Postgres. With Redis reachable, the same host runs on Redis too, token checks fail closed
 * while Redis is cut off (503 within a second) and recover by themselves, and two instances sharing Postgres and
 * Redis see each other's revocations and saves at once.
 *
 * 500 is left out: no request a client can make is meant to produce one.
 */

import { randomBytes } from "node:crypto"
import { request as httpRequest } from "node:http"
import { createPostgresDatabase, hasPostgres, hasRedis, redisUrl, startProxyFor, type TcpProxy } from "@coffer/contract"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Host, start } from "./host.js"

/** The roles every host here runs with, so that one host serves admins, editors, viewers and platform editors. */
const ROLES = {
  OIDC_EDITOR_GROUP: "editors",
  OIDC_ADMIN_GROUP: "admins",
  OIDC_PLATFORM_EDITORS: "guarded:mobile",
  CORS_ORIGIN: "https://dash.example",
}

interface Answer {
  readonly status: number
  readonly body: unknown
  readonly headers: Headers
}

interface Client {
  readonly request: (
    method: string,
    path: string,
    options?: { readonly body?: unknown; readonly headers?: Record<string, string> },
  ) => Promise<Answer>
}

const clientFor = (base: string, headers: Record<string, string> = {}): Client => ({
  request: async (method, path, options = {}) => {
    const hasBody = options.body !== undefined
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...(hasBody ? { "content-type": "application/json" } : {}), ...headers, ...options.headers },
      ...(hasBody ? { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) } : {}),
    })
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text), headers: response.headers }
  },
})

const sessionCookie = async (base: string, email: string, groups: ReadonlyArray<string>): Promise<string> => {
  const response = await fetch(`${base}/api/auth/dev-login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, groups }),
  })
  expect(response.status).toBe(200)
  return response.headers.getSetCookie()[0]!.split(";")[0]!
}

const signIn = async (base: string, email: string, groups: ReadonlyArray<string>): Promise<Client> =>
  clientFor(base, { cookie: await sessionCookie(base, email, groups) })

/**
 * A PUT whose body is over 1 MiB. The server answers 413 from the declared length and may close the connection
 * before the upload ends; `fetch` reports that as a failure, so this speaks HTTP itself and keeps the answer.
 */
const oversized = (url: string, cookie: string) =>
  new Promise<{ status: number; body: string; cacheControl: string | undefined }>((resolve, reject) => {
    const target = new URL(url)
    const chunk = Buffer.alloc(64 * 1024, "y")
    const length = 1024 * 1024 + chunk.length
    let answered = false
    const request = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: "PUT",
        path: target.pathname,
        headers: { cookie, "content-type": "application/json", "content-length": length },
      },
      (response) => {
        answered = true
        let body = ""
        response.on("data", (data) => {
          body += data
        })
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body, cacheControl: response.headers["cache-control"] }),
        )
      },
    )
    request.on("error", (error) => {
      if (!answered) reject(error)
    })
    const send = (left: number) => {
      if (left <= 0 || answered) return void request.end()
      if (request.write(chunk)) send(left - chunk.length)
      else request.once("drain", () => send(left - chunk.length))
    }
    send(length)
  })

/** Platform names of their own per test, so that hosts sharing one Redis never meet. */
let counter = 0
const unique = (name: string) => `${name}-${process.pid}-${++counter}`

const createTokenFor = async (admin: Client, base: string, platforms?: ReadonlyArray<string>) => {
  const created = await admin.request("POST", "/api/_ui/v1/tokens", {
    body: platforms === undefined ? { name: "ci" } : { name: "ci", platforms },
  })
  expect(created.status).toBe(201)
  const { token, record } = created.body as { token: string; record: { id: string } }
  return { token, id: record.id, client: clientFor(base, { authorization: `Bearer ${token}` }) }
}

const postgresDatabase = () => createPostgresDatabase("e2e_schemas")

interface Backend {
  readonly name: string
  /** Settings for the host, and what to clean up after. */
  readonly setup: () => Promise<{ readonly env: Record<string, string>; readonly teardown: () => Promise<void> }>
}

const sqlite: Backend = {
  name: "SQLite",
  setup: async () => ({ env: { COFFER_DATABASE_URL: "sqlite:.coffer/e2e.db" }, teardown: async () => {} }),
}

const postgres: Backend = {
  name: "Postgres",
  setup: async () => {
    const database = await postgresDatabase()
    return { env: { COFFER_DATABASE_URL: database.url }, teardown: database.drop }
  },
}

const withRedis = (backend: Backend): Backend => ({
  name: `${backend.name} and Redis`,
  setup: async () => {
    const inner = await backend.setup()
    return { env: { ...inner.env, COFFER_REDIS_URL: redisUrl }, teardown: inner.teardown }
  },
})

const backends: Array<Backend> = [sqlite]
if (await hasPostgres()) backends.push(postgres)
if (await hasRedis()) backends.push(withRedis(sqlite))

describe.each(backends)("schemas service on $name", (backend) => {
  let host: Host
  let base: string
  let teardown: () => Promise<void>
  let admin: Client
  let editorCookie: string
  let editor: Client
  let viewer: Client
  let anonymous: Client

  beforeAll(async () => {
    const setup = await backend.setup()
    teardown = setup.teardown
    host = await start({ args: ["serve", "--only", "schemas"], env: { ...ROLES, ...setup.env } })
    base = host.schemas!
    admin = await signIn(base, "root@example.com", ["admins"])
    editorCookie = await sessionCookie(base, "ed@example.com", ["editors"])
    editor = clientFor(base, { cookie: editorCookie })
    viewer = await signIn(base, "vi@example.com", [])
    anonymous = clientFor(base)
  })
  afterAll(async () => {
    await host?.stop("SIGKILL")
    await teardown?.()
  })

  it("§3 platform rows: created by POST /api/{platform} (201) and by the dashboard (201, 409 when taken)", async () => {
    const ios = unique("ios")
    const web = unique("web")
    expect(
      await editor.request("POST", `/api/${ios}`, { body: { name: ios, versions: ["1.0.0"], kind: "ios", extra: 1 } }),
    ).toMatchObject({ status: 201, body: { ok: true } })
    expect((await editor.request("GET", `/api/${ios}`)).body).toEqual({ name: ios, versions: ["1.0.0"], kind: "ios" })
    expect(await editor.request("POST", "/api/_ui/v1/platforms", { body: { name: web, kind: "web" } })).toMatchObject({
      status: 201,
      body: { ok: true, platform: { name: web, versions: [], kind: "web" } },
    })
    expect((await editor.request("GET", `/api/${web}/versions`)).body).toEqual([])
    expect(await editor.request("POST", "/api/_ui/v1/platforms", { body: { name: web } })).toMatchObject({
      status: 409,
      body: { error: `Platform "${web}" already exists` },
    })
    const listed = (await viewer.request("GET", "/api/schemas")).body as Array<{ name: string }>
    expect(listed).toEqual(
      expect.arrayContaining([
        { name: ios, versions: ["1.0.0"] },
        { name: web, versions: [] },
      ]),
    )
    // An update without kind keeps it; a bad kind is 400.
    await editor.request("POST", `/api/${ios}`, { body: { name: ios, versions: ["1.0.0"] } })
    expect((await editor.request("GET", `/api/${ios}`)).body).toMatchObject({ kind: "ios" })
    expect(
      await editor.request("POST", `/api/${ios}`, { body: { name: ios, versions: [], kind: "tv" } }),
    ).toMatchObject({ status: 400, body: { error: expect.stringContaining("Invalid kind") } })
  })

  it("§3 version added: POST /api/{platform}/versions, with the version rules and the missing-field message", async () => {
    const ios = unique("ios")
    await editor.request("POST", `/api/${ios}`, { body: { name: ios, versions: [] } })
    for (const version of ["1.0.0", "1.0.0+build.1", "2.0.0-rc.1+exp.sha.5114f85"]) {
      expect(await editor.request("POST", `/api/${ios}/versions`, { body: { version } })).toMatchObject({
        status: 201,
        body: { ok: true },
      })
    }
    expect((await viewer.request("GET", `/api/${ios}/versions`)).body).toEqual([
      "1.0.0",
      "1.0.0+build.1",
      "2.0.0-rc.1+exp.sha.5114f85",
    ])
    for (const version of [" 1.0.0", "1.0", "v1.0.0", `1.0.0-${"a".repeat(123)}`, "1.0.0_x"]) {
      const response = await editor.request("POST", `/api/${ios}/versions`, { body: { version } })
      expect(response.status, version).toBe(400)
    }
    expect(await editor.request("POST", `/api/${ios}/versions`, { body: {} })).toMatchObject({
      status: 400,
      body: { error: 'Missing "version" in the request body' },
    })
    expect(
      await editor.request("POST", `/api/${unique("nope")}/versions`, { body: { version: "1.0.0" } }),
    ).toMatchObject({ status: 404, body: { error: expect.stringMatching(/^Platform ".*" was not found$/) } })
  })

  it("§4 schemas: PUT saves and cascades; GET reads; + and %2B are one version; 400 and 404 messages", async () => {
    const b = unique("base")
    const a = unique("app")
    const w = unique("widget")
    await editor.request("POST", `/api/${b}`, { body: { name: b, versions: ["1.0.0+b.1", "1.1.0"] } })
    await editor.request("POST", `/api/${a}`, { body: { name: a, versions: ["2.0.0"] } })
    await editor.request("POST", `/api/${w}`, { body: { name: w, versions: ["1.0.0"] } })
    expect(
      await editor.request("PUT", `/api/${b}/1.0.0%2Bb.1`, { body: { content: { theme: { c: "red", s: 1 } } } }),
    ).toMatchObject({ status: 200, body: { ok: true, reprocessed: [] } })
    const child = await editor.request("PUT", `/api/${a}/2.0.0`, {
      body: { content: { "@extends": `${b}/1.0.0+b.1`, theme: { c: "blue" } } },
    })
    expect(child.body).toEqual({
      ok: true,
      schema: {
        content: { "@extends": `${b}/1.0.0+b.1`, theme: { c: "blue" } },
        dependencies: [`${b}/1.0.0+b.1`],
        output: { theme: { c: "blue", s: 1 } },
      },
      revision: 1,
      reprocessed: [],
    })
    await editor.request("PUT", `/api/${w}/1.0.0`, { body: { content: { "@extends": [a], w: true } } })
    const cascade = await editor.request("PUT", `/api/${b}/1.0.0+b.1`, { body: { content: { theme: { s: 2 } } } })
    expect((cascade.body as { reprocessed: unknown }).reprocessed).toEqual([`${a}/2.0.0`, `${w}/1.0.0`])
    expect((await viewer.request("GET", `/api/${w}/1.0.0`)).body).toEqual({
      content: { "@extends": [a], w: true },
      dependencies: [a],
      output: { theme: { s: 2, c: "blue" }, w: true },
    })
    expect((await viewer.request("GET", `/api/${b}/1.0.0+b.1`)).body).toMatchObject({ output: { theme: { s: 2 } } })

    const put = (key: string, content: unknown) => editor.request("PUT", `/api/${key}`, { body: { content } })
    expect((await put(`${a}/2.0.0`, [1])).status).toBe(400)
    expect((await put(`${a}/2.0.0`, { "@extends": `${unique("zz")}/1.0.0` })).status).toBe(400)
    expect((await put(`${a}/2.0.0`, { "@extends": `${b}/^3.0.0` })).status).toBe(400)
    const cycle = await put(`${b}/1.0.0%2Bb.1`, { "@extends": w })
    expect(cycle.status).toBe(400)
    expect((cycle.body as { error: string }).error).toContain("Circular dependency detected")
    expect(await viewer.request("GET", `/api/${a}/9.0.0`)).toMatchObject({
      status: 404,
      body: { error: `Version "9.0.0" of platform "${a}" was not found` },
    })
    expect(await viewer.request("GET", `/api/${b}/1.1.0`)).toMatchObject({
      status: 404,
      body: { error: `Schema for version "1.1.0" of platform "${b}" was not found` },
    })
  })

  it("adding a version that a range now selects re-resolves its dependents", async () => {
    const b = unique("base")
    const a = unique("app")
    await editor.request("POST", `/api/${b}`, { body: { name: b, versions: ["1.0.0"] } })
    await editor.request("POST", `/api/${a}`, { body: { name: a, versions: ["1.0.0"] } })
    await editor.request("PUT", `/api/${b}/1.0.0`, { body: { content: { v: 1 } } })
    await editor.request("PUT", `/api/${a}/1.0.0`, { body: { content: { "@extends": `${b}/^1.0.0` } } })
    await editor.request("POST", `/api/${b}/versions`, { body: { version: "1.5.0" } })
    expect((await viewer.request("GET", `/api/${a}/1.0.0`)).body).toMatchObject({ output: {} })
    await editor.request("PUT", `/api/${b}/1.5.0`, { body: { content: { v: 15 } } })
    expect((await viewer.request("GET", `/api/${a}/1.0.0`)).body).toMatchObject({ output: { v: 15 } })
  })

  it("adds a version with its schema in one transaction, or adds nothing", async () => {
    const b = unique("base")
    const a = unique("app")
    await editor.request("POST", `/api/${b}`, { body: { name: b, versions: ["1.0.0"] } })
    await editor.request("POST", `/api/${a}`, { body: { name: a, versions: ["1.0.0"] } })
    await editor.request("PUT", `/api/${b}/1.0.0`, { body: { content: { v: 1, kept: true } } })
    await editor.request("PUT", `/api/${a}/1.0.0`, { body: { content: { "@extends": `${b}/^1.0.0` } } })
    const content = { "@extends": `${b}/1.0.0`, v: 15 }
    expect(await editor.request("POST", `/api/${b}/versions`, { body: { version: "1.5.0", content } })).toMatchObject({
      status: 201,
      body: { ok: true, reprocessed: [`${a}/1.0.0`] },
    })
    expect((await viewer.request("GET", `/api/${a}/1.0.0`)).body).toMatchObject({ output: { v: 15, kept: true } })
    expect((await viewer.request("GET", `/api/${b}/1.5.0`)).body).toEqual({
      content,
      dependencies: [`${b}/1.0.0`],
      output: { v: 15, kept: true },
    })
    // A schema that cannot be resolved rolls the version back with it.
    const cycle = { "@extends": `${a}/1.0.0` }
    expect(
      await editor.request("POST", `/api/${b}/versions`, { body: { version: "1.6.0", content: cycle } }),
    ).toMatchObject({ status: 400 })
    expect((await viewer.request("GET", `/api/${b}/versions`)).body).toEqual(["1.0.0", "1.5.0"])
    expect((await viewer.request("GET", `/api/${a}/1.0.0`)).body).toMatchObject({ output: { v: 15, kept: true } })
  })

  it("§3 deletions: versions left out, one version, a platform; 409 with blockedBy; history removed; audited", async () => {
    const b = unique("base")
    const a = unique("app")
    await admin.request("POST", `/api/${b}`, { body: { name: b, versions: ["1.0.0", "2.0.0", "3.0.0"] } })
    await admin.request("POST", `/api/${a}`, { body: { name: a, versions: ["1.0.0"] } })
    await admin.request("PUT", `/api/${b}/3.0.0`, { body: { content: { gone: true } } })
    await admin.request("PUT", `/api/${a}/1.0.0`, { body: { content: { "@extends": `${b}/1.0.0` } } })

    expect((await editor.request("POST", `/api/${b}`, { body: { name: b, versions: ["1.0.0"] } })).status).toBe(403)
    expect(await admin.request("POST", `/api/${b}`, { body: { name: b, versions: ["2.0.0"] } })).toMatchObject({
      status: 409,
      body: { error: expect.any(String), blockedBy: [{ platform: a, version: "1.0.0", extends: `${b}/1.0.0` }] },
    })
    expect(await admin.request("POST", `/api/${b}`, { body: { name: b, versions: ["1.0.0", "2.0.0"] } })).toMatchObject(
      { status: 201 },
    )
    // History went with 3.0.0: added again, it has no schema.
    await admin.request("POST", `/api/${b}/versions`, { body: { version: "3.0.0" } })
    expect((await viewer.request("GET", `/api/${b}/3.0.0`)).status).toBe(404)

    expect((await editor.request("DELETE", `/api/_ui/v1/platforms/${b}/versions/2.0.0`)).status).toBe(403)
    expect(await admin.request("DELETE", `/api/_ui/v1/platforms/${b}/versions/1.0.0`)).toMatchObject({
      status: 409,
      body: { blockedBy: [{ platform: a, version: "1.0.0", extends: `${b}/1.0.0` }] },
    })
    expect(await admin.request("DELETE", `/api/_ui/v1/platforms/${b}/versions/2.0.0`)).toMatchObject({
      status: 200,
      body: { ok: true },
    })
    expect(await admin.request("DELETE", `/api/_ui/v1/platforms/${b}`)).toMatchObject({
      status: 409,
      body: { error: expect.any(String), blockedBy: [{ platform: a, version: "1.0.0", extends: `${b}/1.0.0` }] },
    })
    await admin.request("PUT", `/api/${a}/1.0.0`, { body: { content: {} } })
    expect(await admin.request("DELETE", `/api/_ui/v1/platforms/${b}`)).toMatchObject({ status: 200 })
    expect((await viewer.request("GET", `/api/${b}`)).status).toBe(404)

    const audit = (await admin.request("GET", "/api/_ui/v1/audit?limit=200")).body as {
      entries: Array<{ action: string; target: string; actor: string }>
    }
    const trail = audit.entries
      .filter((entry) => entry.target.startsWith(b))
      .map((entry) => `${entry.actor} ${entry.action} ${entry.target}`)
    expect(trail.sort()).toEqual([
      `root@example.com platform.delete ${b}`,
      `root@example.com version.delete ${b}/2.0.0`,
      `root@example.com version.delete ${b}/3.0.0`,
    ])
    expect((await editor.request("GET", "/api/_ui/v1/audit")).status).toBe(403)
  })

  it("refuses content with an unpaired surrogate (400, nothing stored) and keeps any well-formed text exactly", async () => {
    const p = unique("text")
    await admin.request("POST", `/api/${p}`, { body: { name: p, versions: ["1.0.0", "2.0.0"] } })
    await admin.request("PUT", `/api/${p}/2.0.0`, { body: { content: { kept: true } } })
    // JSON writes an unpaired surrogate only as an escape; UTF-8 has none, and many clients' parsers refuse one.
    for (const [version, content] of [
      ["1.0.0", '{"v":"a\\ud800b"}'],
      ["1.0.0", '{"k\\udc00":1}'],
      ["2.0.0", '{"list":[{"deep":"\\ude00\\ud83d"}]}'],
    ]) {
      const answer = await admin.request("PUT", `/api/${p}/${version}`, { body: `{"content":${content}}` })
      expect([content, answer.status, (answer.body as { error: string }).error]).toEqual([
        content,
        400,
        expect.stringMatching(/^Invalid schema content: the (string|key) at .* holds an unpaired surrogate \(U\+D/),
      ])
    }
    expect((await admin.request("GET", `/api/${p}/1.0.0`)).status).toBe(404)
    expect((await admin.request("GET", `/api/${p}/2.0.0`)).body).toMatchObject({ content: { kept: true } })
    const history = await admin.request("GET", `/api/_ui/v1/platforms/${p}/versions/2.0.0/revisions`)
    expect((history.body as { revisions: Array<unknown> }).revisions).toHaveLength(1)

    // Surrogate pairs (characters outside the Basic Multilingual Plane), U+FFFD, NUL, separators, in keys and values.
    const hard = "😀 🚀 \ufffd \u0000 \u2028\u2029 \u202e e\u0301 東京"
    const content = { [hard]: hard, nested: { "🚀": [hard, "\ud83d\ude00"] } }
    expect((await admin.request("PUT", `/api/${p}/1.0.0`, { body: { content } })).status).toBe(200)
    const { token } = await createTokenFor(admin, base)
    for (const reader of [admin, clientFor(base, { authorization: `Bearer ${token}` })]) {
      expect((await reader.request("GET", `/api/${p}/1.0.0`)).body).toEqual({
        content,
        dependencies: [],
        output: content,
      })
    }
  })

  it("answers concurrent deletes of one thing with one 200 and 404 for the rest, and audits one", async () => {
    const p = unique("racy")
    await admin.request("POST", `/api/${p}`, { body: { name: p, versions: ["1.0.0", "2.0.0"] } })
    const { id } = await createTokenFor(admin, base)
    // Writes take turns (one transaction at a time, rule 7), and each finds what the one before it left.
    const together = async (path: string) => {
      const answers = await Promise.all(Array.from({ length: 8 }, () => admin.request("DELETE", path)))
      return answers.map((answer) => answer.status).sort()
    }
    const once = [200, 404, 404, 404, 404, 404, 404, 404]
    expect(await together(`/api/_ui/v1/platforms/${p}/versions/1.0.0`)).toEqual(once)
    expect(await together(`/api/_ui/v1/tokens/${id}`)).toEqual(once)
    expect(await together(`/api/_ui/v1/platforms/${p}`)).toEqual(once)
    const audit = (await admin.request("GET", "/api/_ui/v1/audit?limit=200")).body as {
      entries: Array<{ action: string; target: string }>
    }
    const trail = audit.entries
      .filter((entry) => entry.target === id || entry.target.startsWith(p))
      .map((entry) => `${entry.action} ${entry.target}`)
    expect(trail.sort()).toEqual([
      `platform.delete ${p}`,
      `token.create ${id}`,
      `token.revoke ${id}`,
      `version.delete ${p}/1.0.0`,
    ])
  })

  it("§5 roles: viewers read only, platform editors guard their platform, admins alone manage", async () => {
    const guarded = "guarded"
    const mobile = await signIn(base, "mo@example.com", ["editors", "mobile"])
    expect((await viewer.request("POST", `/api/${unique("v")}`, { body: { name: "x", versions: [] } })).status).toBe(
      403,
    )
    expect(
      (await editor.request("POST", `/api/${guarded}`, { body: { name: guarded, versions: ["1.0.0"] } })).status,
    ).toBe(403)
    expect(
      (await mobile.request("POST", `/api/${guarded}`, { body: { name: guarded, versions: ["1.0.0"] } })).status,
    ).toBe(201)
    expect((await editor.request("GET", "/api/_ui/v1/tokens")).status).toBe(403)
    const session = (await mobile.request("GET", "/api/auth/get-session")).body as { permissions: unknown }
    expect(session.permissions).toEqual({ write: true, manage: false, restricted: [] })
  })

  it("§4 tokens: created once, listed without it, read-only on the four paths, scoped, revoked at once", async () => {
    const b = unique("base")
    const a = unique("app")
    const hidden = unique("hidden")
    await admin.request("POST", `/api/${b}`, { body: { name: b, versions: ["1.0.0"] } })
    await admin.request("POST", `/api/${a}`, { body: { name: a, versions: ["1.0.0+x"] } })
    await admin.request("POST", `/api/${hidden}`, { body: { name: hidden, versions: ["1.0.0"] } })
    await admin.request("PUT", `/api/${b}/1.0.0`, { body: { content: { b: 1 } } })
    await admin.request("PUT", `/api/${a}/1.0.0+x`, { body: { content: { "@extends": b, a: 1 } } })

    const all = await createTokenFor(admin, base)
    expect(all.token).toMatch(/^cfs_[A-Za-z0-9_-]{43}$/)
    const listed = (await admin.request("GET", "/api/_ui/v1/tokens")).body as Array<Record<string, unknown>>
    expect(JSON.stringify(listed)).not.toContain(all.token.slice(4))
    expect(listed.find((record) => record.id === all.id)).toMatchObject({ name: "ci", platforms: null })

    for (const path of ["/api/schemas", `/api/${a}`, `/api/${a}/versions`, `/api/${a}/1.0.0%2Bx`]) {
      expect((await all.client.request("GET", path)).status, path).toBe(200)
      const head = await fetch(`${base}${path}`, { method: "HEAD", headers: { authorization: `Bearer ${all.token}` } })
      expect(head.status, `HEAD ${path}`).toBe(200)
    }
    expect(await all.client.request("PUT", `/api/${a}/1.0.0+x`, { body: { content: {} } })).toMatchObject({
      status: 403,
      body: { error: "API tokens are read-only" },
    })
    expect((await all.client.request("POST", `/api/${a}/versions`, { body: { version: "9.0.0" } })).status).toBe(403)
    expect((await all.client.request("GET", "/api/_ui/v1/tokens")).status).toBe(403)
    expect(
      (await fetch(`${base}/api/_ui/v1/tokens`, { headers: { authorization: "Bearer cfs_unknown" } })).status,
    ).toBe(401)
    const used = (await admin.request("GET", "/api/_ui/v1/tokens")).body as Array<Record<string, unknown>>
    expect(used.find((record) => record.id === all.id)?.lastUsedAt).toEqual(expect.any(String))

    const scoped = await createTokenFor(admin, base, [a])
    const names = ((await scoped.client.request("GET", "/api/schemas")).body as Array<{ name: string }>).map(
      (platform) => platform.name,
    )
    expect(names).toEqual([a])
    expect((await scoped.client.request("GET", `/api/${hidden}`)).status).toBe(404)
    expect((await scoped.client.request("GET", `/api/${hidden}/1.0.0`)).status).toBe(404)
    expect(await scoped.client.request("GET", `/api/${a}/1.0.0+x`)).toMatchObject({
      status: 403,
      body: { error: expect.stringContaining("does not cover") },
    })
    const covering = await createTokenFor(admin, base, [a, b])
    expect((await covering.client.request("GET", `/api/${a}/1.0.0+x`)).body).toMatchObject({ output: { b: 1, a: 1 } })

    expect(await admin.request("DELETE", `/api/_ui/v1/tokens/${covering.id}`)).toMatchObject({ status: 200 })
    expect(await covering.client.request("GET", `/api/${a}`)).toMatchObject({
      status: 401,
      body: { error: "Invalid or revoked API token" },
    })
    expect((await admin.request("DELETE", `/api/_ui/v1/tokens/${covering.id}`)).status).toBe(404)
    const audit = (await admin.request("GET", "/api/_ui/v1/audit?limit=200")).body as {
      entries: Array<{ action: string; target: string }>
    }
    const trail = audit.entries.filter((entry) => entry.target === covering.id).map((entry) => entry.action)
    expect(trail.sort()).toEqual(["token.create", "token.revoke"])
  })

  it("§7 statuses and every-response rules: 401, 413, 415, 400 JSON, CORS, no-store and security headers", async () => {
    const noCredential = await anonymous.request("GET", "/api/schemas")
    expect(noCredential).toMatchObject({ status: 401, body: { error: "Authentication required" } })
    expect(noCredential.headers.get("cache-control")).toBe("no-store")
    expect(noCredential.headers.get("x-frame-options")).toBe("DENY")
    const p = unique("limits")
    await editor.request("POST", `/api/${p}`, { body: { name: p, versions: ["1.0.0"] } })
    const big = await oversized(`${base}/api/${p}/1.0.0`, editorCookie)
    expect(big).toMatchObject({ status: 413, cacheControl: "no-store" })
    expect(JSON.parse(big.body)).toEqual({ error: expect.any(String) })
    expect(
      await editor.request("PUT", `/api/${p}/1.0.0`, { body: "{}", headers: { "content-type": "text/plain" } }),
    ).toMatchObject({ status: 415 })
    expect(await editor.request("PUT", `/api/${p}/1.0.0`, { body: "{oops" })).toMatchObject({
      status: 400,
      body: { error: "Malformed JSON body" },
    })
    // A reference naming no possible platform (Postgres cannot even look up a NUL) is 400, before any lookup.
    for (const reference of ["a\u0000b", `${p}\u0000/1.0.0`, "\u0000"]) {
      expect(
        await editor.request("PUT", `/api/${p}/1.0.0`, { body: { content: { "@extends": reference } } }),
        reference,
      ).toMatchObject({ status: 400, body: { error: expect.stringContaining("is no platform name") } })
    }
    for (const path of ["/api/%ZZ", "/api/a%2Fb/1.0.0", `/api/${p}/%00`, "/api/__proto__/x"]) {
      const response = await editor.request("GET", path)
      expect(response.status, path).toBeGreaterThanOrEqual(400)
      expect(response.status, path).toBeLessThan(500)
      expect(response.body, path).toEqual({ error: expect.any(String) })
    }
    const preflight = await fetch(`${base}/api/schemas`, {
      method: "OPTIONS",
      headers: { origin: "https://dash.example", "access-control-request-method": "GET" },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://dash.example")
    const other = await fetch(`${base}/api/schemas`, { headers: { origin: "https://evil.example" } })
    expect(other.headers.get("access-control-allow-origin")).toBeNull()
  })
})

describe.runIf(await hasPostgres())("schemas saved before sources were recorded (Postgres)", () => {
  it("stay unreadable by scoped tokens until their next save", async () => {
    const database = await postgresDatabase()
    const host = await start({ args: ["serve", "--only", "schemas"], env: { COFFER_DATABASE_URL: database.url } })
    try {
      const base = host.schemas!
      const admin = await signIn(base, "root@example.com", [])
      await admin.request("POST", "/api/base", { body: { name: "base", versions: ["1.0.0"] } })
      await admin.request("POST", "/api/app", { body: { name: "app", versions: ["1.0.0"] } })
      await admin.request("PUT", "/api/base/1.0.0", { body: { content: { b: 1 } } })
      await admin.request("PUT", "/api/app/1.0.0", { body: { content: { "@extends": "base" } } })
      const scoped = await createTokenFor(admin, base, ["app", "base"])
      expect((await scoped.client.request("GET", "/api/app/1.0.0")).status).toBe(200)
      // As rows from before sources were recorded look. Adding a version renews the schema cache generation (as
      // the write that upgrades a deployment would), so the cached answer is not what is read next.
      await admin.request("PUT", "/api/base/1.0.0", { body: { content: { b: 2 } } })
      await database.query("update schemas_versions set sources = null")
      await admin.request("POST", "/api/base/versions", { body: { version: "0.1.0" } })
      expect((await scoped.client.request("GET", "/api/app/1.0.0")).status).toBe(403)
      expect((await scoped.client.request("GET", "/api/base/1.0.0")).status).toBe(200)
      await admin.request("PUT", "/api/app/1.0.0", { body: { content: { "@extends": "base" } } })
      expect((await scoped.client.request("GET", "/api/app/1.0.0")).body).toMatchObject({ output: { b: 2 } })
    } finally {
      await host.stop("SIGKILL")
      await database.drop()
    }
  })
})

describe.runIf(await hasRedis())("schemas service with Redis cut off", () => {
  let proxy: TcpProxy
  let host: Host
  beforeAll(async () => {
    const proxied = await startProxyFor(redisUrl, 6379)
    proxy = proxied.proxy
    host = await start({
      args: ["serve", "--only", "schemas"],
      env: { COFFER_DATABASE_URL: "sqlite:.coffer/e2e.db", COFFER_REDIS_URL: proxied.url },
    })
  })
  afterAll(async () => {
    await host?.stop("SIGKILL")
    await proxy?.close()
  })

  it("answers token checks with 503 within a second, never 200, and recovers when Redis is back", async () => {
    const base = host.schemas!
    const admin = await signIn(base, "root@example.com", [])
    const p = unique("outage")
    await admin.request("POST", `/api/${p}`, { body: { name: p, versions: ["1.0.0"] } })
    const { client } = await createTokenFor(admin, base)
    expect((await client.request("GET", `/api/${p}`)).status).toBe(200)

    proxy.cut()
    for (const path of [`/api/${p}`, "/api/schemas", `/api/${p}/versions`]) {
      const started = performance.now()
      const response = await client.request("GET", path)
      expect(response, path).toMatchObject({ status: 503, body: { error: "Service unavailable" } })
      expect(performance.now() - started, path).toBeLessThan(1_000)
    }
    proxy.stall()
    const stalledStart = performance.now()
    expect((await client.request("GET", `/api/${p}`)).status).toBe(503)
    expect(performance.now() - stalledStart).toBeLessThan(1_000)

    proxy.restore()
    await expect
      .poll(async () => (await client.request("GET", `/api/${p}`)).status, { timeout: 15_000, interval: 250 })
      .toBe(200)
  })
})

// Without Redis, invalidations travel over Postgres LISTEN/NOTIFY (@coffer/adapter-postgres PgPubSub).
const sharing: ReadonlyArray<readonly [string, Record<string, string>]> = [
  ...((await hasRedis()) ? [["one Redis", { COFFER_REDIS_URL: redisUrl }] as const] : []),
  ["no Redis", {}],
]

describe.runIf(await hasPostgres()).each(sharing)("two instances on one Postgres and %s", (_name, cache) => {
  const sharedCache = "COFFER_REDIS_URL" in cache
  it("see each other's revocations and saves (at once through Redis, as Postgres notifies without it)", async () => {
    const database = await postgresDatabase()
    // One master key for both, as for any instances sharing a database (each would otherwise generate its own).
    const env = {
      COFFER_DATABASE_URL: database.url,
      ...cache,
      COFFER_MASTER_KEY: randomBytes(32).toString("base64"),
    }
    const first = await start({ args: ["serve", "--only", "schemas"], env })
    const second = await start({ args: ["serve", "--only", "schemas"], env })
    try {
      const adminOne = await signIn(first.schemas!, "root@example.com", [])
      const adminTwo = await signIn(second.schemas!, "root@example.com", [])
      const p = unique("shared")
      await adminOne.request("POST", `/api/${p}`, { body: { name: p, versions: ["1.0.0"] } })
      await adminOne.request("PUT", `/api/${p}/1.0.0`, { body: { content: { v: 1 } } })
      const { token, id } = await createTokenFor(adminOne, first.schemas!)
      const onSecond = clientFor(second.schemas!, { authorization: `Bearer ${token}` })
      const onFirst = clientFor(first.schemas!, { authorization: `Bearer ${token}` })
      // Both instances have read, and kept, the first save.
      for (const client of [onSecond, onFirst])
        expect((await client.request("GET", `/api/${p}/1.0.0`)).body).toMatchObject({ output: { v: 1 } })
      await adminTwo.request("PUT", `/api/${p}/1.0.0`, { body: { content: { v: 2 } } })
      // The other instance's read shares the generation in Redis; without Redis it hears of the save as a
      // Postgres notification (the same path as a revocation, below).
      const onFirstOutput = async () =>
        ((await onFirst.request("GET", `/api/${p}/1.0.0`)).body as { output: unknown }).output
      if (sharedCache) expect(await onFirstOutput()).toEqual({ v: 2 })
      else await expect.poll(onFirstOutput, { timeout: 2_000, interval: 20 }).toEqual({ v: 2 })
      expect(await adminOne.request("DELETE", `/api/_ui/v1/tokens/${id}`)).toMatchObject({ status: 200 })
      // The revoking instance refuses the token at once, whatever the cache.
      expect((await onFirst.request("GET", `/api/${p}`)).status).toBe(401)
      // The other reads the shared Redis entry on every request. Without Redis it learns of the revocation from a
      // Postgres notification, which Postgres sends to its listening connection on its own schedule: on a loaded
      // machine that came after the revoking instance had answered and the next request had been read.
      const onSecondStatus = async () => (await onSecond.request("GET", `/api/${p}`)).status
      if (sharedCache) expect(await onSecondStatus()).toBe(401)
      else await expect.poll(onSecondStatus, { timeout: 2_000, interval: 20 }).toBe(401)
    } finally {
      await Promise.all([first.stop("SIGKILL"), second.stop("SIGKILL")])
      await database.drop()
    }
  })
})
