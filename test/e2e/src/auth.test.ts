/**
 * Development login, sessions and `coffer accounts` against the built `coffer serve`, as a browser and an
 * operator use them: both services' dev-login, `me` / `get-session`, logout ending the session server-side,
 * 404 in production, rate limits, and the e-mail collision that only an operator's `coffer accounts link`
 * resolves. Sign-in through a real identity provider (and its collision) is `oidc.test.ts`'s.
 *
 * The collision is made with development identities alone: unlinking an account's development identity turns
 * the next development login with that address into an unknown identity whose e-mail an account holds, which
 * is exactly the situation of a second provider identity with a known address.
 */
import { createPostgresDatabase, hasPostgres, cookieJar as jar } from "@coffer/contract"
import { afterEach, describe, expect, it, onTestFinished } from "vitest"
import { freshDirectory, type Host, run, start } from "./host.js"

const running: Host[] = []
const started = async (...args: Parameters<typeof start>) => {
  const host = await start(...args)
  running.push(host)
  return host
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((host) => host.stop("SIGKILL")))
})

const DEV_ISSUER = "urn:coffer:development"

const post = (url: string, body?: unknown, cookie = "") =>
  fetch(url, {
    method: "POST",
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(cookie ? { cookie } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })

const get = (url: string, cookie = "") => fetch(url, { headers: cookie ? { cookie } : {} })

/** Signs in one browser on both services and walks through the session's life on each. */
const signInAndOut = async (host: Host) => {
  // Secrets: an account, its session, then logout.
  const secrets = jar()
  const login = await post(`${host.secrets}/api/auth/dev-login`, { email: "Ada@Example.com" })
  expect(login.status).toBe(200)
  const { user } = await login.json()
  expect(user).toEqual({ id: expect.any(String), email: "Ada@Example.com" })
  const cookie = login.headers.getSetCookie().find((line) => line.startsWith("coffer_secrets_session="))
  expect(cookie).toMatch(/HttpOnly/i)
  expect(cookie).toMatch(/SameSite=Lax/i)
  expect(cookie).toMatch(/Path=\//)
  expect(cookie).toMatch(/Max-Age=604800/)
  secrets.store(login)
  const me = await get(`${host.secrets}/api/auth/me`, secrets.header())
  expect(me.status).toBe(200)
  expect(await me.json()).toEqual({ user })
  const before = secrets.header()
  const logout = await post(`${host.secrets}/api/auth/logout`, undefined, secrets.header())
  expect(logout.status).toBe(200)
  expect(await logout.json()).toEqual({ ok: true })
  secrets.store(logout)
  expect(secrets.header()).toBe("")
  expect((await get(`${host.secrets}/api/auth/me`, before)).status).toBe(401)

  // Schemas: groups recorded at sign-in, permissions from the host's roles settings.
  const schemas = jar()
  const schemasLogin = await post(`${host.schemas}/api/auth/dev-login`, {
    email: "ada@example.com",
    groups: ["editors"],
  })
  expect(schemasLogin.status).toBe(200)
  schemas.store(schemasLogin)
  const session = await get(`${host.schemas}/api/auth/get-session`, schemas.header())
  expect(session.status).toBe(200)
  const body = await session.json()
  expect(body.session.user).toEqual({ id: "dev:ada@example.com", email: "ada@example.com", groups: ["editors"] })
  expect(body.permissions).toEqual({ write: true, manage: false, restricted: ["web"] })
  // The two services keep their own sessions.
  expect((await get(`${host.secrets}/api/auth/me`, schemas.header())).status).toBe(401)
  const schemasBefore = schemas.header()
  expect((await post(`${host.schemas}/api/auth/logout`, undefined, schemas.header())).status).toBe(200)
  expect((await get(`${host.schemas}/api/auth/get-session`, schemasBefore)).status).toBe(401)
}

const rolesEnv = {
  OIDC_EDITOR_GROUP: "editors",
  OIDC_ADMIN_GROUP: "admins",
  OIDC_PLATFORM_EDITORS: "web:web-team",
}

describe("development login on the built host", () => {
  it("signs in, answers me and get-session, and logs out on both services", async () => {
    const host = await started({ env: rolesEnv })
    await signInAndOut(host)
  })

  it("keeps one browser signed in to both services on one host: each has its own cookie", async () => {
    const host = await started()
    // One jar for the host, as a browser keeps it: cookies do not tell ports apart.
    const browser = jar()
    browser.store(await post(`${host.secrets}/api/auth/dev-login`, { email: "ada@example.com" }))
    browser.store(await post(`${host.schemas}/api/auth/dev-login`, { email: "ada@example.com", groups: [] }))
    expect([...browser.cookies.keys()].sort()).toEqual(["coffer_schemas_session", "coffer_secrets_session"])
    expect((await get(`${host.secrets}/api/auth/me`, browser.header())).status).toBe(200)
    expect((await get(`${host.schemas}/api/auth/get-session`, browser.header())).status).toBe(200)
    // Signing out of one leaves the other signed in.
    browser.store(await post(`${host.schemas}/api/auth/logout`, undefined, browser.header()))
    expect((await get(`${host.schemas}/api/auth/get-session`, browser.header())).status).toBe(401)
    expect((await get(`${host.secrets}/api/auth/me`, browser.header())).status).toBe(200)
  })

  it("answers 404 to the development login in production, on both services", async () => {
    const host = await started({
      env: { COFFER_ENV: "production", COFFER_MASTER_KEY: Buffer.alloc(32, 7).toString("base64") },
    })
    for (const base of [host.secrets, host.schemas]) {
      const response = await post(`${base}/api/auth/dev-login`, { email: "ada@example.com" })
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: expect.any(String) })
      expect(response.headers.getSetCookie()).toEqual([])
    }
  })

  it("uses the __Host- cookie with Secure when the public origin is https", async () => {
    const host = await started({
      env: {
        COFFER_PUBLIC_ORIGIN: "https://secrets.example.com",
        COFFER_SCHEMAS_PUBLIC_ORIGIN: "https://schemas.example.com",
      },
    })
    for (const [service, base] of [
      ["secrets", host.secrets],
      ["schemas", host.schemas],
    ] as const) {
      const response = await post(`${base}/api/auth/dev-login`, { email: "ada@example.com" })
      expect(response.status).toBe(200)
      const cookie = response.headers
        .getSetCookie()
        .find((line) => line.startsWith(`__Host-coffer_${service}_session=`))
      expect(cookie).toMatch(/Secure/)
    }
  })

  it("limits development logins per client address with COFFER_RATE_LIMIT: 429 with Retry-After", async () => {
    const host = await started({ env: { COFFER_RATE_LIMIT: "2" } })
    for (const base of [host.secrets, host.schemas]) {
      expect((await post(`${base}/api/auth/dev-login`, { email: "ada@example.com" })).status).toBe(200)
      expect((await post(`${base}/api/auth/dev-login`, { email: "ada@example.com" })).status).toBe(200)
      const limited = await post(`${base}/api/auth/dev-login`, { email: "ada@example.com" })
      expect(limited.status).toBe(429)
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
    }
  })
})

/** Each `coffer accounts` call starts a process that loads the whole host: allow for a slow machine. */
const CLI_TEST_TIMEOUT_MS = 90_000

/** How operators read times: ISO 8601 UTC with milliseconds. */
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

// On SQLite the service reads sessions from the store; on Postgres it caches them, and the operator's command ends
// them through Postgres' notifications (no Redis here): the served session must be refused all the same.
const databases: ReadonlyArray<
  readonly [string, () => Promise<{ env: Record<string, string>; drop?: () => Promise<void> }>]
> = [
  ["SQLite", async () => ({ env: {} })],
  ...((await hasPostgres())
    ? [
        [
          "Postgres, sessions cached",
          async () => {
            const database = await createPostgresDatabase("e2e_accounts")
            return { env: { COFFER_DATABASE_URL: database.url }, drop: database.drop }
          },
        ] as const,
      ]
    : []),
]

describe.each(databases)("coffer accounts on %s", (engine, database) => {
  it(
    "lists, links and unlinks identities on the host's database; a collision answers 409 until linked",
    async () => {
      const cwd = freshDirectory()
      const { env: databaseEnv, drop } = await database()
      onTestFinished(async () => drop?.())
      const env = { COFFER_ENV: "development", ...databaseEnv }
      const coffer = (...args: string[]) => run(["accounts", ...args], { env, cwd })
      // Account ids are base64url, so one in 64 starts with "-": positionals go after "--", as an operator would.
      const link = (userId: string, issuer: string, subject: string) => coffer("link", "--", userId, issuer, subject)
      const list = async () => {
        const result = await coffer("list", "--json")
        expect(result.code).toBe(0)
        return JSON.parse(result.stdout) as Array<{
          id: string
          email: string
          identities: Array<{ issuer: string; subject: string }>
        }>
      }
      const host = await started({ cwd, env })
      const devLogin = (email: string) => post(`${host.secrets}/api/auth/dev-login`, { email })

      const adaLogin = await devLogin("ada@example.com")
      const adaCookie = adaLogin.headers.getSetCookie()[0]!.split(";")[0]!
      const ada = (await adaLogin.json()).user
      const bobLogin = await devLogin("bob@example.com")
      const bobCookie = bobLogin.headers.getSetCookie()[0]!.split(";")[0]!
      const bob = (await bobLogin.json()).user
      const me = (cookie: string) => fetch(`${host.secrets}/api/auth/me`, { headers: { cookie } })
      expect((await me(adaCookie)).status).toBe(200)
      expect(await list()).toEqual([
        expect.objectContaining({
          id: ada.id,
          email: "ada@example.com",
          createdAt: expect.stringMatching(ISO_TIME),
          identities: [
            expect.objectContaining({
              issuer: DEV_ISSUER,
              subject: "ada@example.com",
              createdAt: expect.stringMatching(ISO_TIME),
            }),
          ],
        }),
        expect.objectContaining({ id: bob.id, email: "bob@example.com" }),
      ])
      const text = await coffer("list")
      expect(text.stdout).toContain(ada.id)
      expect(text.stdout).toContain(`${DEV_ISSUER}  ada@example.com  linked 20`)
      expect(text.stdout).toMatch(/ {2}created \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n/)

      // Another identity for Ada's account.
      const linked = await link(ada.id, "https://id.example.com", "ada-at-idp")
      expect(linked.code).toBe(0)
      expect((await list())[0]?.identities.map((identity) => identity.subject)).toEqual([
        "ada@example.com",
        "ada-at-idp",
      ])
      // An identity of one account cannot be linked to another, nor to an account that does not exist.
      const stolen = await link(bob.id, "https://id.example.com", "ada-at-idp")
      expect(stolen.code).toBe(1)
      expect(stolen.stderr).toMatch(/^coffer: .*unlink it first/m)
      const nobody = await link("no-such-account", "https://id.example.com", "x")
      expect(nobody.code).toBe(1)

      // The collision: Ada's development identity goes; signing in with it again is an unknown identity whose
      // address an account holds, refused until an operator links it.
      const unlinked = await coffer("unlink", DEV_ISSUER, "ada@example.com")
      expect(unlinked.code).toBe(0)
      // The session that identity started ends with it; other people's sessions do not.
      expect(unlinked.stdout).toContain("1 session ended")
      // Postgres delivers the command's notification to the server on its own schedule (README, COFFER_REDIS_URL).
      if (engine === "SQLite") expect((await me(adaCookie)).status).toBe(401)
      else await expect.poll(async () => (await me(adaCookie)).status, { timeout: 2_000, interval: 20 }).toBe(401)
      expect((await me(bobCookie)).status).toBe(200)
      const refused = await devLogin("ada@example.com")
      expect(refused.status).toBe(409)
      expect((await refused.json()).error).toContain("coffer accounts link")
      expect(refused.headers.getSetCookie()).toEqual([])
      expect(await list()).toHaveLength(2)
      expect((await link(ada.id, DEV_ISSUER, "ada@example.com")).code).toBe(0)
      const after = await devLogin("ada@example.com")
      expect(after.status).toBe(200)
      expect((await after.json()).user.id).toBe(ada.id)

      const gone = await coffer("unlink", "https://id.example.com", "never-linked")
      expect(gone.code).toBe(1)
      expect(gone.stderr).toMatch(/^coffer: /m)
    },
    CLI_TEST_TIMEOUT_MS,
  )
})

describe("coffer accounts --help", () => {
  it(
    "prints help for each subcommand",
    async () => {
      for (const args of [
        ["accounts", "--help"],
        ["accounts", "list", "--help"],
        ["accounts", "link", "--help"],
        ["accounts", "unlink", "--help"],
      ]) {
        const result = await run(args)
        expect(result.code).toBe(0)
        expect(result.stdout).toMatch(/^Usage: coffer accounts/)
      }
      const main = await run(["--help"])
      expect(main.stdout).toMatch(/^\s+accounts\s/m)
    },
    CLI_TEST_TIMEOUT_MS,
  )
})

describe.runIf(await hasPostgres())("development login on Postgres", () => {
  it("keeps sessions and accounts in Postgres", async () => {
    const database = await createPostgresDatabase("e2e_auth")
    try {
      const host = await started({ env: { ...rolesEnv, COFFER_DATABASE_URL: database.url } })
      await signInAndOut(host)
      expect(await database.query("select email from secrets_users")).toEqual([{ email: "Ada@Example.com" }])
      // Both logouts ended their sessions server-side.
      const sessions = await database.query(
        "select (select count(*) from secrets_sessions) + (select count(*) from schemas_sessions) as n",
      )
      expect(Number(sessions[0]?.n)).toBe(0)
    } finally {
      await database.drop()
    }
  })
})
