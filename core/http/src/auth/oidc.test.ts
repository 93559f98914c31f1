/**
 * The OIDC routes over HTTP (`app.request`), with the real adapters behind them: sessions and cache in memory,
 * and the OIDC adapter talking to a real provider (`oidc-provider`, started here).
 *
 * `@coffer/http` depends on no adapter, so the adapters and the provider harness are imported from their
 * sources by path: this file is a test, and nothing it imports reaches the package's build.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { MemoryAccounts, MemoryCache, MemorySessions } from "@coffer/adapter-memory"
import { OidcIdentity } from "@coffer/adapter-oidc"
import { type CookieJar as Jar, cookieJar as jar, type OidcProvider, startOidcProvider } from "@coffer/contract"
import { Cache, Clock, Conflict, Hasher, type Identity, Random, Sessions, SignIn } from "@coffer/kernel"
import { schemasSignedIn } from "@coffer/schemas"
import { Accounts, secretsSignedIn } from "@coffer/secrets"
import { settingsFrom } from "@coffer/test-kit/http"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import type { Hono } from "hono"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBaseApp } from "../app/base.js"
import type { ServiceSettings } from "../app/settings.js"
import type { HttpError } from "../errors.js"
import { mountOidcRoutes } from "./oidc.js"
import { safeReturnTo } from "./returnTo.js"

const CALLBACK = "/api/auth/oauth2/callback/oidc"
const LOGOUT = "/api/auth/backchannel-logout"

describe("OIDC routes", () => {
  let provider: OidcProvider
  const receiver = createServer()
  let publicOrigin: string

  const platform = Layer.mergeAll(Clock.layer, Random.layer, Hasher.layer)
  const stores = () =>
    Layer.mergeAll(MemorySessions.layer, MemoryCache.layer, MemoryAccounts.layer).pipe(Layer.provideMerge(platform))

  /** One service as a host would build it, with or without an identity provider, with or without a web app. */
  const service = (options: {
    readonly oidc: boolean
    readonly webApp?: boolean
    readonly onSignedIn?: (
      signedIn: Identity.SignedIn,
    ) => Effect.Effect<Sessions.NewSession, HttpError, Accounts.Accounts | Cache.Cache | Random.Random>
    readonly rateLimit?: number
    readonly origin?: string
  }) => {
    const origin = options.origin ?? publicOrigin
    const identity = OidcIdentity.layer({
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: Redacted.make(provider.clientSecret),
      name: "Test",
    })
    const runtime = ManagedRuntime.make(options.oidc ? Layer.merge(stores(), Layer.orDie(identity)) : stores())
    const settings: ServiceSettings = settingsFrom({ COFFER_PUBLIC_ORIGIN: origin })
    const { app, handle } = createBaseApp({ runtime, settings, publicOrigin: origin, nonJsonWrites: [LOGOUT] })
    mountOidcRoutes(app, {
      handle,
      service: "test",
      publicOrigin: origin,
      webApp: options.webApp ?? false,
      rateLimit: options.rateLimit === undefined ? undefined : { limit: options.rateLimit },
      onSignedIn:
        options.onSignedIn ??
        ((signedIn) => Effect.succeed({ userId: `user-${signedIn.subject}`, email: signedIn.email ?? "", groups: [] })),
    })
    const session = (token: string | undefined): Promise<Sessions.Session | undefined> =>
      token === undefined
        ? Promise.resolve(undefined)
        : runtime.runPromise(Sessions.Sessions.use((sessions) => sessions.get(token)))
    return { app, runtime, session }
  }

  type Service = ReturnType<typeof service>

  const get = async (app: Hono, path: string, cookies?: Jar) => {
    const response = await app.request(`${publicOrigin}${path}`, {
      headers: cookies === undefined ? {} : { cookie: cookies.header() },
    })
    cookies?.store(response)
    return response
  }

  const postLogout = (app: Hono, token: string | undefined) =>
    app.request(`${publicOrigin}${LOGOUT}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: token === undefined ? "" : new URLSearchParams({ logout_token: token }),
    })

  /** Start → the provider → our callback, in one browser; resolves with the callback's response. */
  const signIn = async (
    svc: Service,
    accountId: string,
    options: { cookies?: Jar; returnTo?: string; browser?: ReturnType<OidcProvider["browser"]> } = {},
  ) => {
    const cookies = options.cookies ?? jar()
    const query = options.returnTo === undefined ? "" : `?returnTo=${encodeURIComponent(options.returnTo)}`
    const start = await get(svc.app, `/api/auth/oidc/start${query}`, cookies)
    expect(start.status).toBe(302)
    const callback = await (options.browser ?? provider.browser()).signIn(
      start.headers.get("location") ?? "",
      accountId,
    )
    const response = await get(svc.app, callback.pathname + callback.search, cookies)
    return { response, cookies, callback, token: cookies.cookies.get("coffer_test_session") }
  }

  beforeAll(async () => {
    // The provider's back-channel logout calls reach the app through a plain HTTP server.
    let target: Hono | undefined
    receiver.on("request", async (request, response) => {
      const chunks: Array<Buffer> = []
      for await (const chunk of request) chunks.push(chunk as Buffer)
      const answer = await target!.request(`${publicOrigin}${request.url}`, {
        method: request.method ?? "GET",
        headers: { "content-type": request.headers["content-type"] ?? "" },
        body: Buffer.concat(chunks),
      })
      response.writeHead(answer.status).end(await answer.text())
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    publicOrigin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
    provider = await startOidcProvider({
      redirectUris: [`${publicOrigin}${CALLBACK}`],
      backchannelLogoutUri: `${publicOrigin}${LOGOUT}`,
      accounts: {
        alice: { email: "alice@example.com", groups: ["editors"] },
        bob: { email: "bob@example.com" },
        nomail: {},
      },
    })
    deliverTo = (app) => {
      target = app
    }
  })
  let deliverTo: (app: Hono) => void = () => undefined
  afterAll(async () => {
    await provider?.stop()
    receiver.close()
  })

  describe("returnTo", () => {
    it("accepts paths on this site, and `/` when absent", () => {
      expect(safeReturnTo(undefined)).toBe("/")
      expect(safeReturnTo("")).toBe("/")
      expect(safeReturnTo("/projects/acme?tab=secrets#top")).toBe("/projects/acme?tab=secrets#top")
      expect(safeReturnTo("/a%20b")).toBe("/a%20b")
    })

    const attempts = [
      "https://evil.example",
      "//evil.example",
      "/\\evil.example",
      "/%2F%2Fevil.example",
      "/%2f/evil.example",
      "/%5Cevil.example",
      "%2F%2Fevil.example",
      "/%252F%252Fevil.example",
      "/%2525252F%2525252Fevil.example",
      "javascript:alert(1)",
      "/\t/evil.example",
      "/%09/evil.example",
      "evil.example",
      "/%E0%A4%A",
      `/${"a".repeat(3000)}`,
    ].map((value) => [value.length > 60 ? `${value.slice(0, 20)}… (${value.length} characters)` : value, value])

    it.each(attempts)("refuses %j as an open redirect, with 400, before any redirect", async (_name, returnTo) => {
      expect(safeReturnTo(returnTo)).toBeUndefined()
      for (const webApp of [false, true]) {
        const { app } = service({ oidc: true, webApp })
        const response = await get(app, `/api/auth/oidc/start?returnTo=${encodeURIComponent(returnTo)}`)
        expect(response.status).toBe(400)
        expect(await response.json()).toEqual({ error: expect.any(String) })
        expect(response.headers.get("location")).toBeNull()
      }
    })

    it("refuses two returnTo values", async () => {
      const { app } = service({ oidc: true })
      const response = await get(app, "/api/auth/oidc/start?returnTo=/a&returnTo=//evil.example")
      expect(response.status).toBe(400)
    })
  })

  describe("sign-in", () => {
    it("limits the start and the callback per client (429 with Retry-After)", async () => {
      const svc = service({ oidc: true, rateLimit: 3 })
      const cookies = jar()
      const start = await get(svc.app, "/api/auth/oidc/start", cookies)
      const callback = await provider.signIn(start.headers.get("location") ?? "", "alice")
      expect((await get(svc.app, callback.pathname + callback.search, cookies)).status).toBe(302)
      expect((await get(svc.app, "/api/auth/oidc/start")).status).toBe(302)
      const limited = await get(svc.app, "/api/auth/oidc/start")
      expect(limited.status).toBe(429)
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
      expect((await get(svc.app, `${CALLBACK}?code=x&state=y`)).status).toBe(429)
    })

    it("sends a limited sign-in to the web app's sign-in page rather than answering JSON in the tab", async () => {
      const svc = service({ oidc: true, webApp: true, rateLimit: 1 })
      expect((await get(svc.app, "/api/auth/oidc/start")).status).toBe(302)
      for (const path of ["/api/auth/oidc/start", `${CALLBACK}?code=x&state=y`]) {
        const limited = await get(svc.app, path)
        expect(limited.status).toBe(302)
        expect(limited.headers.get("location")).toBe("/sign-in?error=unavailable")
      }
    })

    it("redirects to the provider with a state cookie, the pending sign-in kept server-side", async () => {
      const { app, runtime } = service({ oidc: true })
      const cookies = jar()
      const response = await get(app, "/api/auth/oidc/start?returnTo=/projects", cookies)
      expect(response.status).toBe(302)
      const url = new URL(response.headers.get("location") ?? "")
      expect(url.origin).toBe(provider.issuer)
      expect(url.searchParams.get("redirect_uri")).toBe(`${publicOrigin}${CALLBACK}`)
      const state = url.searchParams.get("state") ?? ""
      expect(cookies.cookies.get("coffer_test_oidc_state")).toBe(state)
      expect(response.headers.get("set-cookie")).toMatch(/HttpOnly/i)
      const key = `oidc:pending:${await runtime.runPromise(Hasher.Hasher.use((hasher) => hasher.sha256Hex(state)))}`
      const stored = await runtime.runPromise(Cache.Cache.use((cache) => cache.get(key)))
      expect(JSON.parse(stored ?? "{}")).toMatchObject({ state, returnTo: "/projects" })
      expect(stored).not.toContain(provider.clientSecret)
    })

    it("on an https origin, names the state cookie __Host- and marks it Secure, and builds the redirect URI on it", async () => {
      const { app } = service({ oidc: true, origin: "https://coffer.example" })
      const response = await get(app, "/api/auth/oidc/start")
      expect(response.status).toBe(302)
      expect(response.headers.get("set-cookie")).toMatch(/^__Host-coffer_test_oidc_state=[^;]+;.*Path=\/;.*Secure/i)
      expect(new URL(response.headers.get("location") ?? "").searchParams.get("redirect_uri")).toBe(
        `https://coffer.example${CALLBACK}`,
      )
    })

    it("creates a session at the first sign-in and redirects to returnTo", async () => {
      const svc = service({ oidc: true })
      const { response, token } = await signIn(svc, "alice", { returnTo: "/projects/acme" })
      expect(response.status).toBe(302)
      expect(response.headers.get("location")).toBe("/projects/acme")
      expect(response.headers.get("set-cookie")).toMatch(/coffer_test_session=cfss_[^;]+;.*HttpOnly/i)
      expect(await svc.session(token)).toMatchObject({
        userId: "user-alice",
        email: "alice@example.com",
        issuer: provider.issuer,
        subject: "alice",
        providerSessionId: expect.any(String),
      })
    })

    it("gives a new session at every sign-in and ends the one the browser had", async () => {
      const svc = service({ oidc: true })
      const first = await signIn(svc, "alice")
      const second = await signIn(svc, "alice", { cookies: first.cookies })
      expect(second.token).toBeDefined()
      expect(second.token).not.toBe(first.token)
      expect(await svc.session(second.token)).toBeDefined()
      expect(await svc.session(first.token)).toBeUndefined()
    })

    it("refuses a callback from a browser that did not start the sign-in, and lets the right one finish", async () => {
      const svc = service({ oidc: true })
      const cookies = jar()
      const start = await get(svc.app, "/api/auth/oidc/start", cookies)
      const callback = await provider.signIn(start.headers.get("location") ?? "", "alice")
      const elsewhere = await get(svc.app, callback.pathname + callback.search, jar())
      expect(elsewhere.status).toBe(400)
      expect(elsewhere.headers.get("set-cookie") ?? "").not.toMatch(/coffer_test_session=cfss_/)
      const here = await get(svc.app, callback.pathname + callback.search, cookies)
      expect(here.status).toBe(302)
    })

    it("takes a pending sign-in once: the same callback again answers 400 (expired)", async () => {
      const svc = service({ oidc: true })
      const cookies = jar()
      const start = await get(svc.app, "/api/auth/oidc/start", cookies)
      const state = cookies.cookies.get("coffer_test_oidc_state") ?? ""
      const callback = await provider.signIn(start.headers.get("location") ?? "", "alice")
      expect((await get(svc.app, callback.pathname + callback.search, cookies)).status).toBe(302)
      cookies.cookies.set("coffer_test_oidc_state", state)
      const again = await get(svc.app, callback.pathname + callback.search, cookies)
      expect(again.status).toBe(400)
      expect(await again.json()).toEqual({ error: expect.stringMatching(/start again/) })
    })

    it("answers 400 for a callback whose state was never issued", async () => {
      const svc = service({ oidc: true })
      const cookies = jar()
      cookies.cookies.set("coffer_test_oidc_state", "made-up")
      const response = await get(svc.app, `${CALLBACK}?code=x&state=made-up`, cookies)
      expect(response.status).toBe(400)
      expect((await get(svc.app, `${CALLBACK}?code=x`, cookies)).status).toBe(400)
    })

    it("maps refusals to JSON statuses, or to /sign-in?error= when a web app is served", async () => {
      const linking = () => Effect.fail(new Conflict({ message: "Another account has this e-mail address" }))
      const cases = [
        { account: "deny", status: 403, reason: "refused", onSignedIn: undefined },
        { account: "nomail", status: 400, reason: "email", onSignedIn: undefined },
        { account: "bob", status: 409, reason: "linking", onSignedIn: linking },
      ] as const
      for (const { account, status, reason, onSignedIn } of cases) {
        for (const webApp of [false, true]) {
          const svc = service({ oidc: true, webApp, ...(onSignedIn ? { onSignedIn } : {}) })
          const cookies = jar()
          const start = await get(svc.app, "/api/auth/oidc/start", cookies)
          const location = start.headers.get("location") ?? ""
          const callback = account === "deny" ? await provider.deny(location) : await provider.signIn(location, account)
          const response = await get(svc.app, callback.pathname + callback.search, cookies)
          if (webApp) {
            expect(response.status).toBe(302)
            expect(response.headers.get("location")).toBe(`/sign-in?error=${reason}`)
          } else {
            expect(response.status).toBe(status)
            expect(await response.json()).toEqual({ error: expect.any(String) })
          }
          expect(cookies.cookies.get("coffer_test_session")).toBeUndefined()
        }
      }
    })

    it("answers 404 when no identity provider is configured (off)", async () => {
      const { app } = service({ oidc: false })
      for (const path of ["/api/auth/oidc/start?returnTo=/", `${CALLBACK}?code=x&state=y`]) {
        const response = await get(app, path)
        expect(response.status).toBe(404)
        expect(await response.json()).toEqual({ error: "Sign-in with OpenID Connect is not configured" })
      }
      expect((await postLogout(app, "x.y.z")).status).toBe(404)
      const web = service({ oidc: false, webApp: true })
      const redirected = await get(web.app, "/api/auth/oidc/start")
      expect(redirected.status).toBe(302)
      expect(redirected.headers.get("location")).toBe("/sign-in?error=off")
    })
  })

  describe("what a sign-in means to each service", () => {
    it("secrets: the first sign-in creates the account, the next reuses it; an e-mail collision is 409 until linked", async () => {
      for (const webApp of [false, true]) {
        const svc = service({ oidc: true, webApp, onSignedIn: secretsSignedIn })
        const first = await signIn(svc, "alice")
        const second = await signIn(svc, "alice")
        const userId = (await svc.session(first.token))?.userId
        expect(userId).toEqual(expect.any(String))
        expect((await svc.session(second.token))?.userId).toBe(userId)

        // Another identity with alice's address: refused until an operator links it to her account.
        provider.accounts.set("alice-elsewhere", { email: "Alice@Example.com" })
        const refused = await signIn(svc, "alice-elsewhere")
        if (webApp) expect(refused.response.headers.get("location")).toBe("/sign-in?error=linking")
        else expect(refused.response.status).toBe(409)
        expect(refused.token).toBeUndefined()
        await svc.runtime.runPromise(
          Accounts.Accounts.use((accounts) => accounts.link(userId ?? "", provider.issuer, "alice-elsewhere")),
        )
        const linked = await signIn(svc, "alice-elsewhere")
        expect(linked.response.status).toBe(302)
        expect((await svc.session(linked.token))?.userId).toBe(userId)
      }
    })

    it("schemas: the groups of the roles claim are recorded on the session", async () => {
      let claim = "groups"
      const svc = service({ oidc: true, onSignedIn: schemasSignedIn(() => claim) })
      const alice = await signIn(svc, "alice")
      expect(await svc.session(alice.token)).toMatchObject({ userId: "alice", groups: ["editors"] })
      claim = "roles"
      const again = await signIn(svc, "alice")
      expect((await svc.session(again.token))?.groups).toEqual([])
    })
  })

  describe("back-channel logout", () => {
    const sidOf = async (svc: Service, token: string | undefined) => (await svc.session(token))?.providerSessionId

    it("with sid ends exactly that provider session; with sub only, every session of the subject", async () => {
      const svc = service({ oidc: true })
      const aliceOne = await signIn(svc, "alice")
      const aliceTwo = await signIn(svc, "alice")
      const bob = await signIn(svc, "bob")
      const sid = await sidOf(svc, aliceOne.token)
      expect(sid).toBeDefined()
      expect(sid).not.toBe(await sidOf(svc, aliceTwo.token))

      const bySid = await postLogout(svc.app, provider.mintLogoutToken(provider.logoutClaims({ sub: "alice", sid })))
      expect(bySid.status).toBe(200)
      expect(await svc.session(aliceOne.token)).toBeUndefined()
      expect(await svc.session(aliceTwo.token)).toBeDefined()
      expect(await svc.session(bob.token)).toBeDefined()

      const aliceThree = await signIn(svc, "alice")
      const bySub = await postLogout(svc.app, provider.mintLogoutToken(provider.logoutClaims({ sub: "alice" })))
      expect(bySub.status).toBe(200)
      expect(await svc.session(aliceTwo.token)).toBeUndefined()
      expect(await svc.session(aliceThree.token)).toBeUndefined()
      expect(await svc.session(bob.token)).toBeDefined()
    })

    it("refuses a replayed token with 400 and ends nothing", async () => {
      const svc = service({ oidc: true })
      await signIn(svc, "alice")
      const token = provider.mintLogoutToken(provider.logoutClaims({ sub: "alice" }))
      expect((await postLogout(svc.app, token)).status).toBe(200)
      const later = await signIn(svc, "alice")
      const replay = await postLogout(svc.app, token)
      expect(replay.status).toBe(400)
      expect(await replay.json()).toEqual({ error: "This logout token has already been used" })
      expect(await svc.session(later.token)).toBeDefined()
      expect(SignIn.LOGOUT_REPLAY_WINDOW_MS).toBeGreaterThan(
        (OidcIdentity.LOGOUT_TOKEN_REPLAY_WINDOW_SECONDS + 60) * 1000,
      )
    })

    it("refuses invalid tokens and requests with 400 and ends nothing", async () => {
      const svc = service({ oidc: true })
      const alice = await signIn(svc, "alice")
      const invalid = [
        provider.mintLogoutToken(provider.logoutClaims({ sub: "alice", iss: "http://evil.example" })),
        provider.mintLogoutToken(provider.logoutClaims({ sub: "alice", nonce: "n" })),
        provider.mintLogoutToken(provider.logoutClaims({ sub: "alice" }), { header: { alg: "none" }, key: "none" }),
        "garbage",
        undefined,
      ]
      for (const token of invalid) {
        const response = await postLogout(svc.app, token)
        expect(response.status).toBe(400)
        expect(await response.json()).toEqual({ error: expect.any(String) })
      }
      const json = await svc.app.request(`${publicOrigin}${LOGOUT}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ logout_token: provider.mintLogoutToken(provider.logoutClaims({ sub: "alice" })) }),
      })
      expect(json.status).toBe(400)
      expect(await svc.session(alice.token)).toBeDefined()
    })

    it("limits refused tokens per client, never valid ones", async () => {
      const svc = service({ oidc: true, rateLimit: 2 })
      await signIn(svc, "alice")
      expect((await postLogout(svc.app, "garbage")).status).toBe(400)
      expect((await postLogout(svc.app, "garbage")).status).toBe(400)
      const limited = await postLogout(svc.app, "garbage")
      expect(limited.status).toBe(429)
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
      for (let i = 0; i < 3; i++) {
        const valid = provider.mintLogoutToken(provider.logoutClaims({ sub: "alice" }))
        expect((await postLogout(svc.app, valid)).status).toBe(200)
      }
    })

    it("ends the session when the provider itself sends the logout token", async () => {
      const svc = service({ oidc: true })
      deliverTo(svc.app)
      const browser = provider.browser()
      const alice = await signIn(svc, "alice", { browser })
      const other = await signIn(svc, "alice")
      const before = provider.backchannelResults.length
      await browser.endSession()
      expect(provider.backchannelResults.slice(before)).toEqual([{ ok: true, detail: "200" }])
      expect(await svc.session(alice.token)).toBeUndefined()
      expect(await svc.session(other.token)).toBeDefined()
    })
  })
})
