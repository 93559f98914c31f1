/**
 * Signing in through a real identity provider (`oidc-provider`, started here) to the built `coffer serve`, on
 * both services, as a browser would: start, the provider's login and consent, the callback, then the session.
 *
 * The host starts first, configured for a provider that is not there yet (discovery is lazy, so a missing
 * provider never stops the host); the provider then starts on the announced port, knowing the host's real
 * addresses for its redirect URIs and its back-channel logout calls.
 */
import {
  createPostgresDatabase,
  freePort,
  hasPostgres,
  type CookieJar as Jar,
  cookieJar as jar,
  type OidcBrowser,
  type OidcProvider,
  startOidcProvider,
} from "@coffer/contract"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshDirectory, type Host, run, start } from "./host.js"

const CALLBACK = "/api/auth/oauth2/callback/oidc"

/** Where the host keeps its sessions and accounts: the embedded default, and Postgres when it answers. */
const databases = [
  { name: "SQLite", create: async () => ({ env: {}, drop: async () => {} }) },
  ...((await hasPostgres())
    ? [
        {
          name: "Postgres",
          create: async () => {
            const database = await createPostgresDatabase("e2e_oidc")
            return { env: { COFFER_DATABASE_URL: database.url }, drop: database.drop }
          },
        },
      ]
    : []),
]

describe.each(databases)("OIDC sign-in against the built host on $name", (database) => {
  let host: Host
  let provider: OidcProvider
  let dropDatabase: (() => Promise<void>) | undefined
  const cwd = freshDirectory()
  const clientSecret = "e2e-client-secret-0123456789"
  let env: Record<string, string>

  beforeAll(async () => {
    const created = await database.create()
    dropDatabase = created.drop
    const issuerPort = await freePort()
    env = {
      ...created.env,
      OIDC_ISSUER: `http://127.0.0.1:${issuerPort}`,
      OIDC_CLIENT_ID: "coffer-e2e",
      OIDC_CLIENT_SECRET: clientSecret,
      OIDC_NAME: "Test IdP",
      OIDC_EDITOR_GROUP: "editors",
      OIDC_ADMIN_GROUP: "admins",
    }
    host = await start({ env, cwd })
    const localOrigin = (url: string | undefined) => `http://localhost:${new URL(url ?? "").port}`
    provider = await startOidcProvider({
      port: issuerPort,
      clientId: env.OIDC_CLIENT_ID,
      clientSecret,
      redirectUris: [`${localOrigin(host.secrets)}${CALLBACK}`, `${localOrigin(host.schemas)}${CALLBACK}`],
      backchannelLogoutUri: `${host.secrets}/api/auth/backchannel-logout`,
      accounts: {
        ada: { email: "ada@example.com", groups: ["editors"] },
        "ada-elsewhere": { email: "ADA@example.com" },
        grace: { email: "grace@example.com", groups: ["admins"] },
        hopper: { email: "hopper@example.com", groups: ["viewers"] },
      },
    })
  })
  afterAll(async () => {
    await host?.stop("SIGKILL")
    await provider?.stop()
    await dropDatabase?.()
  })

  const request = async (base: string | undefined, path: string, cookies: Jar, init: RequestInit = {}) => {
    const response = await fetch(`${base}${path}`, {
      ...init,
      redirect: "manual",
      headers: { ...init.headers, cookie: cookies.header() },
    })
    cookies.store(response)
    return response
  }

  /** Start → provider → callback; resolves with the callback's response and this browser's cookies. */
  const signIn = async (
    base: string | undefined,
    accountId: string,
    options: { browser?: OidcBrowser; returnTo?: string } = {},
  ) => {
    const cookies = jar()
    const returnTo = options.returnTo ?? "/"
    const started = await request(base, `/api/auth/oidc/start?returnTo=${encodeURIComponent(returnTo)}`, cookies)
    expect(started.status).toBe(302)
    const callback = await (options.browser ?? provider.browser()).signIn(
      started.headers.get("location") ?? "",
      accountId,
    )
    const response = await request(base, callback.pathname + callback.search, cookies)
    return { response, cookies }
  }

  const json = async (response: Response) => ({ status: response.status, body: await response.json() })

  it("offers the provider on the instance description", async () => {
    const instance = await json(await fetch(`${host.secrets}/api/instance`))
    // On the public origin (here the default, localhost), not the 127.0.0.1 the host was reached at.
    expect(instance.body.signIn.oidc).toEqual({
      name: "Test IdP",
      url: `http://localhost:${new URL(host.secrets ?? "").port}/api/auth/oidc/start`,
    })
  })

  describe("secrets", () => {
    it("creates the account at the first sign-in and reuses it at the second", async () => {
      const first = await signIn(host.secrets, "ada", { returnTo: "/projects" })
      expect(first.response.status).toBe(302)
      expect(first.response.headers.get("location")).toBe("/projects")
      const me = await json(await request(host.secrets, "/api/auth/me", first.cookies))
      expect(me).toEqual({ status: 200, body: { user: { id: expect.any(String), email: "ada@example.com" } } })

      const second = await signIn(host.secrets, "ada")
      const meAgain = await json(await request(host.secrets, "/api/auth/me", second.cookies))
      expect(meAgain.body.user.id).toBe(me.body.user.id)
    })

    it("refuses an open redirect", async () => {
      for (const returnTo of ["https://evil.example", "//evil.example", "/\\evil.example", "/%2F%2Fevil.example"]) {
        const response = await fetch(`${host.secrets}/api/auth/oidc/start?returnTo=${encodeURIComponent(returnTo)}`, {
          redirect: "manual",
        })
        expect(response.status).toBe(400)
      }
    })

    it("answers 409 for another identity with the same e-mail until an operator links it", async () => {
      const ada = await signIn(host.secrets, "ada")
      const adaId = (await json(await request(host.secrets, "/api/auth/me", ada.cookies))).body.user.id

      // The web app is served, so the refusal (409 in JSON without it) lands on its sign-in page.
      const refused = await signIn(host.secrets, "ada-elsewhere")
      expect(refused.response.status).toBe(302)
      expect(refused.response.headers.get("location")).toBe("/sign-in?error=linking")
      expect((await request(host.secrets, "/api/auth/me", refused.cookies)).status).toBe(401)

      // Account ids are base64url, so one in 64 starts with "-": positionals go after "--".
      const linked = await run(["accounts", "link", "--", adaId, provider.issuer, "ada-elsewhere"], {
        env: { ...env, COFFER_ENV: "development" },
        cwd,
      })
      expect(linked).toMatchObject({ code: 0 })

      const accepted = await signIn(host.secrets, "ada-elsewhere")
      expect(accepted.response.status).toBe(302)
      const me = await json(await request(host.secrets, "/api/auth/me", accepted.cookies))
      expect(me.body.user.id).toBe(adaId)
    })

    it("ends exactly the provider session that signs out (back-channel logout from the provider)", async () => {
      const browser = provider.browser()
      const leaving = await signIn(host.secrets, "grace", { browser })
      const staying = await signIn(host.secrets, "grace")
      expect((await request(host.secrets, "/api/auth/me", leaving.cookies)).status).toBe(200)

      const before = provider.backchannelResults.length
      await browser.endSession()
      expect(provider.backchannelResults.slice(before)).toEqual([{ ok: true, detail: "200" }])
      expect((await request(host.secrets, "/api/auth/me", leaving.cookies)).status).toBe(401)
      expect((await request(host.secrets, "/api/auth/me", staying.cookies)).status).toBe(200)
    })

    it("refuses a replayed logout token and a forged one with 400", async () => {
      const session = await signIn(host.secrets, "hopper")
      const token = provider.mintLogoutToken(provider.logoutClaims({ sub: "hopper" }))
      const post = (logoutToken: string) =>
        fetch(`${host.secrets}/api/auth/backchannel-logout`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ logout_token: logoutToken }),
        })
      expect((await post(token)).status).toBe(200)
      expect((await request(host.secrets, "/api/auth/me", session.cookies)).status).toBe(401)
      const again = await signIn(host.secrets, "hopper")
      expect((await post(token)).status).toBe(400)
      expect(
        (await post(provider.mintLogoutToken(provider.logoutClaims({ sub: "hopper", aud: "other" })))).status,
      ).toBe(400)
      expect((await request(host.secrets, "/api/auth/me", again.cookies)).status).toBe(200)
    })
  })

  describe("schemas", () => {
    it("records the groups of the roles claim and derives permissions from them", async () => {
      const cases = [
        { account: "ada", write: true, manage: false },
        { account: "grace", write: true, manage: true },
        { account: "hopper", write: false, manage: false },
      ]
      for (const { account, write, manage } of cases) {
        const { response, cookies } = await signIn(host.schemas, account)
        expect(response.status).toBe(302)
        const session = await json(await request(host.schemas, "/api/auth/get-session", cookies))
        expect(session.status).toBe(200)
        expect(session.body.permissions).toMatchObject({ write, manage })
      }
    })

    it("ends the sessions of a subject on a back-channel logout", async () => {
      const { cookies } = await signIn(host.schemas, "ada")
      expect((await request(host.schemas, "/api/auth/get-session", cookies)).status).toBe(200)
      const response = await fetch(`${host.schemas}/api/auth/backchannel-logout`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ logout_token: provider.mintLogoutToken(provider.logoutClaims({ sub: "ada" })) }),
      })
      expect(response.status).toBe(200)
      expect((await request(host.schemas, "/api/auth/get-session", cookies)).status).toBe(401)
    })
  })
})
