/**
 * Two `coffer serve --only secrets` processes on one Postgres database and one Redis, as an operator runs several
 * instances (DESIGN.md "Storage"): a Secrets API key deleted on A is refused by B on the very next request, a
 * secret written on A reads on B, and rate-limit counts are one count across both. The schemas side of two
 * instances (token revocation, saves) is covered in schemas.test.ts.
 *
 * Both instances use the default Redis key prefix (`COFFER_REDIS_PREFIX`, as one deployment does); what they
 * share there is kept apart from other runs by unique data: each client speaks from a loopback address of its own (127.x.y.z), which
 * is the address rate limits count by.
 */
import { randomBytes } from "node:crypto"
import { createPostgresDatabase, hasPostgres, hasRedis, type PostgresDatabase, redisUrl } from "@coffer/contract"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { clientFrom, freshAddress } from "./clientFrom.js"
import { type Host, start } from "./host.js"

/** An owner signed in on `base` from an address of their own, their project `shared`, and its secrets' path. */
const sharedProject = async (base: string) => {
  const owner = clientFrom(freshAddress())
  const cookie = await owner.signIn(base, "owner@example.com")
  expect((await owner.call(base, "POST", "/api/projects", { cookie, body: { name: "Shared" } })).status).toBe(201)
  return { owner, cookie, S: "/api/projects/shared/environments/development/secrets" }
}

describe.runIf((await hasPostgres()) && (await hasRedis()))("two secrets instances on one Postgres and Redis", () => {
  let database: PostgresDatabase | undefined
  let a: Host
  let b: Host

  beforeAll(async () => {
    database = await createPostgresDatabase("e2e_instances")
    const env = {
      COFFER_DATABASE_URL: database.url,
      COFFER_REDIS_URL: redisUrl,
      COFFER_MASTER_KEY: randomBytes(32).toString("base64"),
      COFFER_RATE_LIMIT: "3",
    }
    // Started together: migrations must be safe when instances start at once.
    ;[a, b] = await Promise.all([
      start({ args: ["serve", "--only", "secrets"], env }),
      start({ args: ["serve", "--only", "secrets"], env }),
    ])
  })

  afterAll(async () => {
    await Promise.all([a?.stop("SIGKILL"), b?.stop("SIGKILL")])
    await database?.drop()
  })

  it("a secret written on A reads on B; an API key deleted on A is refused by B on the next request", async () => {
    const A = a.secrets!
    const B = b.secrets!
    const { owner, cookie, S } = await sharedProject(A)

    // The session made on A is good on B, and what A writes B reads, whatever either has cached.
    expect((await owner.call(B, "GET", `${S}/DB_URL`, { cookie })).status).toBe(404)
    expect((await owner.call(A, "POST", S, { cookie, body: { key: "DB_URL", value: "postgres://one" } })).body).toEqual(
      { ok: true, action: "created", version: 1 },
    )
    expect((await owner.call(B, "GET", `${S}/DB_URL`, { cookie })).body.secret).toMatchObject({
      key: "DB_URL",
      value: "postgres://one",
      version: 1,
    })
    expect((await owner.call(A, "POST", S, { cookie, body: { key: "DB_URL", value: "postgres://two" } })).status).toBe(
      200,
    )
    expect((await owner.call(B, "GET", `${S}/DB_URL`, { cookie })).body.secret).toMatchObject({
      value: "postgres://two",
      version: 2,
    })

    // A key made on A works on B (B's check of it is now cached), until A deletes it.
    const created = await owner.call(A, "POST", "/api/api-keys", {
      cookie,
      body: { name: "ci", projectSlug: "shared", scope: "write" },
    })
    expect(created.status).toBe(201)
    const key = created.body.key as string
    for (let i = 0; i < 3; i++) {
      expect((await owner.call(B, "GET", `${S}/DB_URL`, { key })).body.secret.value).toBe("postgres://two")
    }
    expect((await owner.call(B, "POST", S, { key, body: { key: "FROM_B", value: "b" } })).status).toBe(201)
    expect((await owner.call(A, "GET", `${S}/FROM_B`, { key })).body.secret.value).toBe("b")

    expect((await owner.call(A, "DELETE", `/api/api-keys/${created.body.id}`, { cookie })).body).toEqual({ ok: true })
    expect((await owner.call(B, "GET", `${S}/DB_URL`, { key })).status).toBe(401)
    expect((await owner.call(A, "GET", `${S}/DB_URL`, { key })).status).toBe(401)
    expect((await owner.call(B, "POST", S, { key, body: { key: "AFTER", value: "x" } })).status).toBe(401)
    expect((await owner.call(B, "GET", `${S}/AFTER`, { cookie })).status).toBe(404)
  })

  it("a session B has looked up (and cached) is refused by B on the next request once A has ended it", async () => {
    const A = a.secrets!
    const B = b.secrets!
    const person = clientFrom(freshAddress())
    const cookie = await person.signIn(A, "leaving@example.com")
    for (const base of [B, B, A]) expect((await person.call(base, "GET", "/api/auth/me", { cookie })).status).toBe(200)
    expect((await person.call(A, "POST", "/api/auth/logout", { cookie })).status).toBe(200)
    expect((await person.call(B, "GET", "/api/auth/me", { cookie })).status).toBe(401)
    expect((await person.call(A, "GET", "/api/auth/me", { cookie })).status).toBe(401)
  })

  it("count rate-limited attempts once across instances: three logins on A, the fourth on B is 429", async () => {
    const A = a.secrets!
    const B = b.secrets!
    const client = clientFrom(freshAddress())
    for (let i = 0; i < 3; i++) expect((await client.devLogin(A, "ada@example.com")).status).toBe(200)
    const limited = await client.devLogin(B, "ada@example.com")
    expect(limited.status).toBe(429)
    expect(limited.body).toEqual({ error: expect.any(String) })
    expect((await client.devLogin(A, "ada@example.com")).status).toBe(429)
    // The count is per client address: another client still signs in on B.
    expect((await clientFrom(freshAddress()).devLogin(B, "ada@example.com")).status).toBe(200)
  })
})

// Without Redis each instance caches API-key checks in process, and a change on one reaches the others as a Postgres
// notification (@coffer/adapter-postgres PgPubSub): the instance that deleted the key refuses it at once, the
// others as Postgres delivers the notification (README, `COFFER_REDIS_URL`).
describe.runIf(await hasPostgres())("two secrets instances on one Postgres, no Redis", () => {
  it("an API key or a session that B has cached is refused by B once A has deleted or ended it", async () => {
    const database = await createPostgresDatabase("e2e_instances_pg")
    const env = { COFFER_DATABASE_URL: database.url, COFFER_MASTER_KEY: randomBytes(32).toString("base64") }
    const [a, b] = await Promise.all([
      start({ args: ["serve", "--only", "secrets"], env }),
      start({ args: ["serve", "--only", "secrets"], env }),
    ])
    try {
      const A = a.secrets!
      const B = b.secrets!
      const { owner, cookie, S } = await sharedProject(A)
      expect(
        (await owner.call(A, "POST", S, { cookie, body: { key: "DB_URL", value: "postgres://one" } })).status,
      ).toBe(201)
      const created = await owner.call(A, "POST", "/api/api-keys", {
        cookie,
        body: { name: "ci", projectSlug: "shared" },
      })
      const key = created.body.key as string
      for (const base of [A, B, B]) expect((await owner.call(base, "GET", `${S}/DB_URL`, { key })).status).toBe(200)
      expect((await owner.call(A, "DELETE", `/api/api-keys/${created.body.id}`, { cookie })).body).toEqual({ ok: true })
      expect((await owner.call(A, "GET", `${S}/DB_URL`, { key })).status).toBe(401)
      await expect
        .poll(async () => (await owner.call(B, "GET", `${S}/DB_URL`, { key })).status, { timeout: 2_000, interval: 20 })
        .toBe(401)

      // The same for a session: B has cached it; A ends it; B refuses it as soon as Postgres delivers the news.
      expect((await owner.call(B, "GET", "/api/auth/me", { cookie })).status).toBe(200)
      expect((await owner.call(A, "POST", "/api/auth/logout", { cookie })).status).toBe(200)
      expect((await owner.call(A, "GET", "/api/auth/me", { cookie })).status).toBe(401)
      await expect
        .poll(async () => (await owner.call(B, "GET", "/api/auth/me", { cookie })).status, {
          timeout: 2_000,
          interval: 20,
        })
        .toBe(401)
    } finally {
      await Promise.all([a.stop("SIGKILL"), b.stop("SIGKILL")])
      await database.drop()
    }
  })

  /**
   * A notification sent while an instance's listening connection is down never reaches it: once it listens again it
   * forgets what it cached, so a key deleted in the gap is refused within the reconnection (a second), not after its
   * cached check expires (a minute). And a publisher whose own listener is down still gets the news out.
   */
  it("a key deleted while B's listener, or A's, was cut off is refused by B within seconds", async () => {
    const database = await createPostgresDatabase("e2e_instances_listen")
    const env = { COFFER_DATABASE_URL: database.url, COFFER_MASTER_KEY: randomBytes(32).toString("base64") }
    const [a, b] = await Promise.all([
      start({ args: ["serve", "--only", "secrets"], env }),
      start({ args: ["serve", "--only", "secrets"], env }),
    ])
    /** Ends `host`'s listening connection from the server's side, as a restart of Postgres or a proxy would. */
    const cutListener = async (host: typeof a) => {
      const ended = await database.query(
        "select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = $1",
        [`coffer-listen ${host.child.pid}`],
      )
      expect(ended).toEqual([{ ended: true }])
    }
    try {
      const A = a.secrets!
      const B = b.secrets!
      const { owner, cookie, S } = await sharedProject(A)
      expect((await owner.call(A, "POST", S, { cookie, body: { key: "K", value: "v" } })).status).toBe(201)
      for (const listener of [b, a]) {
        const created = await owner.call(A, "POST", "/api/api-keys", {
          cookie,
          body: { name: "ci", projectSlug: "shared" },
        })
        const key = created.body.key as string
        // B has checked the key, and caches that check for a minute.
        expect((await owner.call(B, "GET", `${S}/K`, { key })).status).toBe(200)
        await cutListener(listener)
        expect((await owner.call(A, "DELETE", `/api/api-keys/${created.body.id}`, { cookie })).status).toBe(200)
        await expect
          .poll(async () => (await owner.call(B, "GET", `${S}/K`, { key })).status, { timeout: 5_000, interval: 50 })
          .toBe(401)
      }
      expect(b.output()).toContain("listening again; what this instance had cached is forgotten")
    } finally {
      await Promise.all([a.stop("SIGKILL"), b.stop("SIGKILL")])
      await database.drop()
    }
  })
})
