/**
 * The schemas service's sign-in routes over HTTP (`app.request`) on the real in-memory adapters: the
 * development login with groups, `get-session` with permissions worked out from the roles settings of the
 * moment, logout, the 404 outside development, rate limits and bad bodies.
 */
import {
  CLIENT_HEADER,
  clientAddress,
  cookieAttributes,
  cookieJar,
  memoryRuntime,
  postJson,
  rolesFrom,
  schemasSettingsFrom,
} from "@coffer/test-kit/http"
import { afterEach, describe, expect, it } from "vitest"
import { createBaseApp } from "../app/base.js"
import { mountSchemasAuth } from "./schemasAuth.js"

const MASTER_KEY = Buffer.alloc(32, 7).toString("base64")

const runtimes: Array<ReturnType<typeof memoryRuntime>> = []
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.dispose()))
})

const service = (env: Record<string, string> = {}) => {
  const runtime = memoryRuntime()
  runtimes.push(runtime)
  const settings = schemasSettingsFrom(env)
  let roles = settings.roles
  const { app, handle } = createBaseApp({ runtime, settings, publicOrigin: settings.publicOrigin })
  mountSchemasAuth(app, {
    handle,
    settings,
    publicOrigin: settings.publicOrigin,
    roles: () => roles,
    clientAddress,
  })
  return {
    app,
    setRoles: (env: Record<string, string>) => {
      roles = rolesFrom(env)
    },
  }
}

const devLogin = (body: unknown, headers: Record<string, string> = {}) => postJson("/api/auth/dev-login", body, headers)

const getSession = (cookie: string) => new Request("http://coffer.test/api/auth/get-session", { headers: { cookie } })

const signedIn = async (app: ReturnType<typeof service>["app"], body: unknown) => {
  const jar = cookieJar()
  const response = await app.request(devLogin(body))
  expect(response.status).toBe(200)
  jar.store(response)
  return { jar, response }
}

describe("schemas sign-in routes", () => {
  it("signs in with the development login, recording the groups on the session", async () => {
    const { app } = service()
    const { jar, response } = await signedIn(app, { email: "Ada@Example.com", groups: ["editors", "web", "editors"] })
    expect(await response.json()).toEqual({
      user: { id: "dev:ada@example.com", email: "Ada@Example.com", groups: ["editors", "web"] },
    })
    expect(cookieAttributes(response, "coffer_schemas_session")).toMatchObject({
      httponly: "",
      samesite: "Lax",
      path: "/",
    })
    const session = await app.request(getSession(jar.header()))
    expect(session.status).toBe(200)
    const body = await session.json()
    expect(body).toEqual({
      session: {
        user: { id: "dev:ada@example.com", email: "Ada@Example.com", groups: ["editors", "web"] },
        createdAt: expect.any(String),
        expiresAt: expect.any(String),
      },
      permissions: { write: true, manage: true, restricted: [] },
    })
    expect(Date.parse(body.session.expiresAt) - Date.parse(body.session.createdAt)).toBe(7 * 24 * 60 * 60 * 1000)
  })

  it("treats absent groups as none", async () => {
    const { app } = service({ OIDC_EDITOR_GROUP: "editors" })
    const { jar } = await signedIn(app, { email: "viewer@example.com" })
    const body = await (await app.request(getSession(jar.header()))).json()
    expect(body.session.user.groups).toEqual([])
    expect(body.permissions).toEqual({ write: false, manage: false, restricted: [] })
  })

  it("works permissions out from the roles settings of each request, so a change narrows live sessions", async () => {
    const { app, setRoles } = service()
    const { jar } = await signedIn(app, { email: "ada@example.com", groups: ["editors", "web-team"] })
    const permissions = async () => (await (await app.request(getSession(jar.header()))).json()).permissions
    expect(await permissions()).toEqual({ write: true, manage: true, restricted: [] })
    setRoles({ OIDC_EDITOR_GROUP: "editors", OIDC_ADMIN_GROUP: "admins" })
    expect(await permissions()).toEqual({ write: true, manage: false, restricted: [] })
    setRoles({ OIDC_ADMIN_GROUP: "admins", OIDC_PLATFORM_EDITORS: "web:web-team;api:api-team" })
    expect(await permissions()).toEqual({ write: true, manage: false, restricted: ["api"] })
    setRoles({ OIDC_EDITOR_GROUP: "others" })
    expect(await permissions()).toEqual({ write: false, manage: false, restricted: [] })
  })

  it("answers get-session with 401 without a live session", async () => {
    const { app } = service()
    for (const cookie of ["", "coffer_schemas_session=cfss_unknown"]) {
      const response = await app.request(getSession(cookie))
      expect(response.status).toBe(401)
      expect(await response.json()).toEqual({ error: "Not signed in" })
    }
  })

  it("logs out: the session ends server-side, the cookie is cleared, and a new login gets a new value", async () => {
    const { app } = service()
    const { jar } = await signedIn(app, { email: "ada@example.com" })
    const old = jar.header()
    const again = await app.request(devLogin({ email: "ada@example.com" }, { cookie: old }))
    jar.store(again)
    expect(jar.header()).not.toBe(old)
    expect((await app.request(getSession(old))).status).toBe(401)
    const logout = await app.request(
      new Request("http://coffer.test/api/auth/logout", { method: "POST", headers: { cookie: jar.header() } }),
    )
    expect(logout.status).toBe(200)
    expect(await logout.json()).toEqual({ ok: true })
    expect(cookieAttributes(logout, "coffer_schemas_session")).toMatchObject({ value: "", "max-age": "0" })
    expect((await app.request(getSession(jar.header()))).status).toBe(401)
  })

  it("uses a Secure __Host- cookie when the schemas public origin is https", async () => {
    const { app } = service({ COFFER_SCHEMAS_PUBLIC_ORIGIN: "https://schemas.example.com" })
    const response = await app.request(devLogin({ email: "ada@example.com" }))
    expect(cookieAttributes(response, "__Host-coffer_schemas_session")).toMatchObject({ secure: "", path: "/" })
  })

  it("answers 404 to the development login in production", async () => {
    const { app } = service({ COFFER_ENV: "production", COFFER_MASTER_KEY: MASTER_KEY })
    const response = await app.request(devLogin({ email: "ada@example.com", groups: ["admins"] }))
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: "Not found" })
    expect(response.headers.getSetCookie()).toEqual([])
    // Not there for any method, nor read as the schema of a platform `auth`.
    for (const method of ["GET", "OPTIONS", "PUT", "DELETE"]) {
      const other = await app.request("http://coffer.test/api/auth/dev-login", { method })
      expect(other.status, method).toBe(404)
      expect(await other.json(), method).toEqual({ error: "Not found" })
    }
  })

  it("refuses bad bodies with 400", async () => {
    const { app } = service()
    for (const body of [
      { email: "not-an-address" },
      { email: "ada@example.com", groups: "admins" },
      { email: "ada@example.com", groups: [1] },
      { email: "ada@example.com", groups: [""] },
      { email: "ada@example.com", groups: Array.from({ length: 101 }, (_, i) => `g${i}`) },
      { email: "ada@example.com", groups: ["x".repeat(257)] },
      { email: "ada@example.com", groups: ["ad\u0000mins"] },
      { email: "ada@example.com", groups: ["admins\u202e"] },
      { email: "\u00fc\u202e@example.com" },
      { email: "ada\u200b@example.com" },
      { email: "ada\ud800@example.com" },
    ]) {
      const response = await app.request(devLogin(body))
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(response.headers.getSetCookie()).toEqual([])
    }
  })

  it("refuses a development login from another origin (login CSRF); the service's own origin signs in", async () => {
    const { app } = service()
    const forged = await app.request(devLogin({ email: "mallory@example.com" }, { origin: "https://evil.example" }))
    expect(forged.status).toBe(403)
    expect(forged.headers.getSetCookie()).toEqual([])
    // Its own origin by a DNS name is what a rebinding page sends (`sameOrigin.ts`): only at localhost or an address.
    const named = await app.request(devLogin({ email: "ada@example.com" }, { origin: "http://coffer.test" }))
    expect(named.status).toBe(403)
    const own = await app.request(
      devLogin({ email: "ada@example.com" }, { origin: "http://localhost:8787", host: "localhost:8787" }),
    )
    expect(own.status).toBe(200)
  })

  it("limits development logins per client address: 429 with Retry-After", async () => {
    const { app } = service({ COFFER_RATE_LIMIT: "1" })
    const from = (client: string) => devLogin({ email: "ada@example.com" }, { [CLIENT_HEADER]: client })
    expect((await app.request(from("10.0.0.1"))).status).toBe(200)
    const limited = await app.request(from("10.0.0.1"))
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
    expect((await app.request(from("10.0.0.2"))).status).toBe(200)
  })
})
