/**
 * A command-line login across two `coffer serve --only secrets` processes sharing one Postgres and one Redis: it
 * is started on A, approved and polled on B, and the key it hands out works on A; a second poll on A, or a poll
 * racing it, finds it used. Pending logins live in the Cache port (Redis here), so this fails if any step kept them
 * in one instance's memory.
 */
import { randomBytes } from "node:crypto"
import { createPostgresDatabase, hasPostgres, hasRedis, type PostgresDatabase, redisUrl } from "@coffer/contract"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { clientFrom, freshAddress } from "./clientFrom.js"
import { type Host, start } from "./host.js"

describe.runIf((await hasPostgres()) && (await hasRedis()))("a command-line login across two instances", () => {
  let database: PostgresDatabase | undefined
  let a: Host
  let b: Host

  beforeAll(async () => {
    database = await createPostgresDatabase("e2e_cli_login")
    const env = {
      COFFER_DATABASE_URL: database.url,
      COFFER_REDIS_URL: redisUrl,
      COFFER_MASTER_KEY: randomBytes(32).toString("base64"),
    }
    ;[a, b] = await Promise.all([
      start({ args: ["serve", "--only", "secrets"], env }),
      start({ args: ["serve", "--only", "secrets"], env }),
    ])
  })

  afterAll(async () => {
    await Promise.all([a?.stop("SIGKILL"), b?.stop("SIGKILL")])
    await database?.drop()
  })

  it("starts on A, is approved and polled on B, and hands out its key exactly once", async () => {
    const A = a.secrets!
    const B = b.secrets!
    const client = clientFrom(freshAddress())
    const cookie = await client.signIn(A, "owner@example.com")
    expect((await client.call(A, "POST", "/api/projects", { cookie, body: { name: "Shared" } })).status).toBe(201)

    const started = await client.call(A, "POST", "/api/cli-logins", { body: { name: "ci-runner" } })
    expect(started.status).toBe(201)
    const { deviceCode, userCode } = started.body as { deviceCode: string; userCode: string }
    const poll = (base: string) => client.call(base, "POST", "/api/cli-logins/token", { body: { deviceCode } })
    expect(await poll(B)).toMatchObject({ status: 400, body: { code: "authorization_pending" } })
    // Within the interval, whichever instance is asked.
    expect(await poll(A)).toMatchObject({ status: 400, body: { code: "slow_down" } })
    expect(await client.call(B, "GET", `/api/cli-logins/${userCode}`, { cookie })).toMatchObject({
      status: 200,
      body: { name: "ci-runner" },
    })
    const approved = await client.call(B, "POST", `/api/cli-logins/${userCode}/approve`, {
      cookie,
      body: { projectSlug: "shared" },
    })
    expect(approved.status).toBe(200)
    // Once approved, only the claim decides: of two polls at once on the two instances, one gets the key.
    const [first, second] = await Promise.all([poll(B), poll(A)])
    const winners = [first, second].filter((reply) => reply.status === 200)
    expect(winners).toHaveLength(1)
    const issued = winners[0]!.body as { key: string; scope: string; projectSlug: string }
    expect(issued).toMatchObject({ scope: "read", projectSlug: "shared" })
    const loser = [first, second].find((reply) => reply.status !== 200)!
    expect(loser).toMatchObject({ status: 400, body: { code: "expired_token" } })
    expect((await client.call(A, "GET", "/api/projects/shared/environments", { key: issued.key })).status).toBe(200)
    expect(await poll(A)).toMatchObject({ status: 400, body: { code: "expired_token" } })
    expect((await client.call(A, "GET", `/api/cli-logins/${userCode}`, { cookie })).status).toBe(404)
  })
})
