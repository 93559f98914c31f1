/**
 * `COFFER_REDIS_PREFIX`: two deployments on one Redis keep apart when their prefixes differ. Rate-limit counts
 * live in Redis under the prefix, so a client that has spent its attempts on one deployment still signs in on
 * the other; with one prefix the count is shared (instances.test.ts).
 */
import { randomBytes } from "node:crypto"
import { hasRedis, redisUrl } from "@coffer/contract"
import Redis from "ioredis"
import { afterAll, describe, expect, it } from "vitest"
import { clientFrom, freshAddress } from "./clientFrom.js"
import { defaultHost, type Host, start } from "./host.js"

describe.runIf(await hasRedis())(`two deployments on one Redis (${defaultHost})`, () => {
  const running: Array<Host> = []
  afterAll(async () => {
    await Promise.all(running.map((host) => host.stop("SIGKILL")))
  })

  const deployment = async (prefix: string) => {
    const host = await start({
      host: defaultHost,
      args: ["serve", "--only", "secrets"],
      env: { COFFER_REDIS_URL: redisUrl, COFFER_REDIS_PREFIX: prefix, COFFER_RATE_LIMIT: "2" },
    })
    running.push(host)
    return host.secrets!
  }

  it("count attempts apart, and write their keys under their own prefix", async () => {
    const run = randomBytes(6).toString("hex")
    const [one, two] = await Promise.all([deployment(`e2e:${run}:one:`), deployment(`e2e:${run}:two:`)])
    const client = clientFrom(freshAddress())
    const statuses = []
    for (let i = 0; i < 3; i++) statuses.push((await client.devLogin(one, "ada@example.com")).status)
    expect(statuses).toEqual([200, 200, 429])
    expect((await client.devLogin(two, "ada@example.com")).status).toBe(200)

    const redis = new Redis(redisUrl)
    try {
      const keys = await redis.keys(`e2e:${run}:*`)
      expect(keys.some((key) => key.startsWith(`e2e:${run}:one:`))).toBe(true)
      expect(keys.some((key) => key.startsWith(`e2e:${run}:two:`))).toBe(true)
    } finally {
      redis.disconnect()
    }
  })
})
