/**
 * The secrets service's sign-in routes over HTTP (`app.request`) on the real in-memory adapters: the
 * development login and its cookie, `me`, logout ending the session server-side, the 404 outside development,
 * rate limits and the answers to bad bodies.
 */
import { Sessions } from "@coffer/kernel"
import { Accounts } from "@coffer/secrets"
import { cacheDown } from "@coffer/test-kit/cache"
import {
  CLIENT_HEADER,
  clientAddress,
  cookieAttributes,
  cookieJar,
  memoryRuntime,
  postJson,
  settingsFrom,
} from "@coffer/test-kit/http"
import { afterEach, describe, expect, it } from "vitest"
import { createBaseApp } from "../app/base.js"
import { mountSecretsAuth } from "./secretsAuth.js"

const MASTER_KEY = Buffer.alloc(32, 7).toString("base64")
const PRODUCTION = { COFFER_ENV: "production", COFFER_MASTER_KEY: MASTER_KEY }

const runtimes: Array<ReturnType<typeof memoryRuntime>> = []
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.dispose()))
})

const service = (env: Record<string, string> = {}, options: Parameters<typeof memoryRuntime>[0] = {}) => {
  const runtime = memoryRuntime(options)
  runtimes.push(runtime)
  const settings = settingsFrom(env)
  const { app, handle } = createBaseApp({ runtime, settings, publicOrigin: settings.publicOrigin })
  mountSecretsAuth(app, { handle, settings, publicOrigin: settings.publicOrigin, clientAddress })
  return { app, runtime }
}

const devLogin = (body: unknown, headers: Record<string, string> = {}) => postJson("/api/auth/dev-login", body, headers)

const get = (path: string, cookie = "") => new Request(`http://coffer.test${path}`, { headers: { cookie } })

describe("secrets sign-in routes", () => {
  it("signs in with the development login: the user, and a session cookie with the right attributes", async () => {
    const { app } = service()
    const response = await app.request(devLogin({ email: "Ada@Example.com" }))
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body).toEqual({ user: { id: expect.any(String), email: "Ada@Example.com" } })
    const cookie = cookieAttributes(response, "coffer_secrets_session")
    expect(cookie).toMatchObject({
      value: expect.stringMatching(/^cfss_[A-Za-z0-9_-]{43}$/),
      httponly: "",
      samesite: "Lax",
      path: "/",
      "max-age": String(7 * 24 * 60 * 60),
    })
    expect(cookie).not.toHaveProperty("secure")
  })

  it("uses a Secure __Host- cookie when the public origin is https", async () => {
    const { app } = service({ COFFER_PUBLIC_ORIGIN: "https://secrets.example.com" })
    const response = await app.request(devLogin({ email: "ada@example.com" }))
    expect(response.status).toBe(200)
    expect(cookieAttributes(response, "coffer_secrets_session")).toBeUndefined()
    expect(cookieAttributes(response, "__Host-coffer_secrets_session")).toMatchObject({
      secure: "",
      path: "/",
      httponly: "",
    })
    const me = await app.request(
      get(
        "/api/auth/me",
        `__Host-coffer_secrets_session=${cookieAttributes(response, "__Host-coffer_secrets_session")?.value}`,
      ),
    )
    expect(me.status).toBe(200)
  })

  it("answers me with the signed-in user, and 401 without a live session", async () => {
    const { app } = service()
    const jar = cookieJar()
    const login = await app.request(devLogin({ email: "ada@example.com" }))
    jar.store(login)
    const { user } = await login.json()
    const me = await app.request(get("/api/auth/me", jar.header()))
    expect(me.status).toBe(200)
    expect(await me.json()).toEqual({ user })
    for (const cookie of ["", "coffer_secrets_session=cfss_unknown", "coffer_secrets_session=garbage"]) {
      const anonymous = await app.request(get("/api/auth/me", cookie))
      expect(anonymous.status).toBe(401)
      expect(await anonymous.json()).toEqual({ error: "Not signed in" })
    }
  })

  it("keeps one account per address and gives a new session value at every sign-in, ending the previous one", async () => {
    const { app } = service()
    const jar = cookieJar()
    const first = await app.request(devLogin({ email: "ada@example.com" }))
    jar.store(first)
    const firstValue = jar.cookies.get("coffer_secrets_session")
    const second = await app.request(devLogin({ email: "ADA@example.com" }, { cookie: jar.header() }))
    jar.store(second)
    const secondValue = jar.cookies.get("coffer_secrets_session")
    expect(secondValue).toBeDefined()
    expect(secondValue).not.toBe(firstValue)
    expect((await second.json()).user.id).toBe((await first.json()).user.id)
    expect((await app.request(get("/api/auth/me", `coffer_secrets_session=${firstValue}`))).status).toBe(401)
    expect((await app.request(get("/api/auth/me", jar.header()))).status).toBe(200)
  })

  it("logs out: the session ends server-side and the cookie is cleared", async () => {
    const { app } = service()
    const jar = cookieJar()
    jar.store(await app.request(devLogin({ email: "ada@example.com" })))
    const stolen = jar.header()
    const logout = await app.request(
      new Request("http://coffer.test/api/auth/logout", { method: "POST", headers: { cookie: stolen } }),
    )
    expect(logout.status).toBe(200)
    expect(await logout.json()).toEqual({ ok: true })
    expect(cookieAttributes(logout, "coffer_secrets_session")).toMatchObject({ value: "", "max-age": "0", path: "/" })
    // A copy of the old cookie is worth nothing now.
    expect((await app.request(get("/api/auth/me", stolen))).status).toBe(401)
  })

  it("logs out without a session too", async () => {
    const { app } = service()
    const logout = await app.request(new Request("http://coffer.test/api/auth/logout", { method: "POST" }))
    expect(logout.status).toBe(200)
    expect(await logout.json()).toEqual({ ok: true })
  })

  it("answers 404 to the development login in production, and creates nothing", async () => {
    const { app, runtime } = service(PRODUCTION)
    const response = await app.request(devLogin({ email: "ada@example.com" }))
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: "Not found" })
    expect(response.headers.getSetCookie()).toEqual([])
    expect(await runtime.runPromise(Accounts.Accounts.use((accounts) => accounts.list()))).toEqual([])
    // Not there for any method: no 405 saying it answers POST, no OPTIONS offering it.
    for (const method of ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]) {
      const other = await app.request("http://coffer.test/api/auth/dev-login", { method })
      expect(other.status, method).toBe(404)
      expect(other.headers.get("allow"), method).toBeNull()
    }
  })

  it("refuses bad bodies: 415 when not JSON, 400 when malformed or not an address", async () => {
    const { app } = service()
    const notJson = await app.request(
      new Request("http://coffer.test/api/auth/dev-login", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "email=ada@example.com",
      }),
    )
    expect(notJson.status).toBe(415)
    for (const body of [
      "{",
      "",
      "[]",
      {},
      { email: 42 },
      { email: "" },
      { email: "ada" },
      { email: "ada @example.com" },
      { email: " ada@example.com" },
      { email: "ada\u0000@example.com" },
      { email: "ada@example.com\u0007" },
      // An unpaired surrogate cannot be stored as UTF-8: SQLite kept bytes that read back as another address, and
      // Postgres stored U+FFFD, so "ada\ufffd@example.com" then signed in to the same account.
      { email: "ada\ud800@example.com" },
      { email: "ada@example.com\udc00" },
      { email: `${"a".repeat(250)}@example.com` },
    ]) {
      const response = await app.request(devLogin(body))
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(await response.json()).toEqual({ error: expect.any(String) })
      expect(response.headers.getSetCookie()).toEqual([])
    }
  })

  it("limits development logins per client address: 429 with Retry-After", async () => {
    const { app } = service({ COFFER_RATE_LIMIT: "2" })
    const from = (client: string) => devLogin({ email: "ada@example.com" }, { [CLIENT_HEADER]: client })
    expect((await app.request(from("10.0.0.1"))).status).toBe(200)
    expect((await app.request(from("10.0.0.1"))).status).toBe(200)
    const limited = await app.request(from("10.0.0.1"))
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60)
    expect(await limited.json()).toEqual({ error: expect.stringContaining("Too many attempts") })
    expect(limited.headers.getSetCookie()).toEqual([])
    // Another address has its own allowance.
    expect((await app.request(from("10.0.0.2"))).status).toBe(200)
  })

  it("fails closed when the cache behind the rate limit is down: 503, no session", async () => {
    const { app } = service({ COFFER_RATE_LIMIT: "5" }, { cache: cacheDown })
    const response = await app.request(devLogin({ email: "ada@example.com" }))
    expect(response.status).toBe(503)
    expect(response.headers.getSetCookie()).toEqual([])
  })

  it("answers 409 when an account of another identity holds the address, until an operator links them", async () => {
    const { app, runtime } = service()
    const holder = await runtime.runPromise(
      Accounts.Accounts.use((accounts) =>
        accounts.create({ email: "ada@example.com", issuer: "https://id.example.com", subject: "ada" }),
      ),
    )
    const refused = await app.request(devLogin({ email: "ada@example.com" }))
    expect(refused.status).toBe(409)
    expect((await refused.json()).error).toContain("coffer accounts link")
    expect(refused.headers.getSetCookie()).toEqual([])
    await runtime.runPromise(
      Accounts.Accounts.use((accounts) => accounts.link(holder.id, "urn:coffer:development", "ada@example.com")),
    )
    const linked = await app.request(devLogin({ email: "ada@example.com" }))
    expect(linked.status).toBe(200)
    expect((await linked.json()).user.id).toBe(holder.id)
  })

  it("records the session under the account, without the cookie value", async () => {
    const { app, runtime } = service()
    const response = await app.request(devLogin({ email: "ada@example.com" }))
    const { user } = await response.json()
    const value = cookieAttributes(response, "coffer_secrets_session")?.value ?? ""
    const session = await runtime.runPromise(Sessions.Sessions.use((sessions) => sessions.get(value)))
    expect(session).toMatchObject({ userId: user.id, email: "ada@example.com", groups: [] })
    expect(session?.id).toMatch(/^[0-9a-f]{64}$/)
    expect(session?.id).not.toContain(value)
  })
})
