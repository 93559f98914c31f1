/**
 * Every instance on one database must use one cache (README "Running several instances"): each start records its
 * cache in the database and warns when the last start there had another, naming both, never the Redis URL.
 */
import { randomBytes } from "node:crypto"
import { join } from "node:path"
import { hasRedis, redisUrl } from "@coffer/contract"
import { afterAll, describe, expect, it } from "vitest"
import { defaultHost, freshDirectory, type Host, start } from "./host.js"

describe.runIf(await hasRedis())(`the cache each start records (${defaultHost})`, () => {
  const running: Array<Host> = []
  afterAll(async () => {
    await Promise.all(running.map((host) => host.stop("SIGKILL")))
  })

  // One directory for every start: the development master key is kept there.
  const cwd = freshDirectory()
  const database = `sqlite:${join(cwd, "coffer.db")}`
  const prefix = `e2e:${randomBytes(6).toString("hex")}:`
  /** Starts and stops an instance on the one database; answers the warnings it logged about the cache. */
  const startOnce = async (redis: boolean) => {
    const host = await start({
      host: defaultHost,
      args: ["serve", "--only", "secrets"],
      cwd,
      env: {
        COFFER_DATABASE_URL: database,
        COFFER_LOG_FORMAT: "json",
        ...(redis ? { COFFER_REDIS_URL: redisUrl, COFFER_REDIS_PREFIX: prefix } : {}),
      },
    })
    running.push(host)
    await host.stop()
    return host
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { level: string; message: string })
      .filter((line) => line.level === "WARN" && line.message.includes("cache"))
      .map((line) => line.message)
  }

  it("warns once when an instance starts on another cache than the last, and not on the same one", async () => {
    expect(await startOnce(true)).toEqual([])
    expect(await startOnce(true)).toEqual([])
    const moved = await startOnce(false)
    expect(moved).toEqual([
      `the last start on this database used the cache Redis (COFFER_REDIS_URL set, COFFER_REDIS_PREFIX=${prefix}); ` +
        "this one uses in process (COFFER_REDIS_URL unset). Instances on one database must share one cache: one " +
        "that differs does not see the others' revocations (an API key deleted or a session ended on one is still " +
        "taken by the other). Restart any instance still on the other setting with this one's; once every " +
        "instance has moved, this is said no more",
    ])
    expect(moved.join("\n")).not.toContain(redisUrl)
    expect(await startOnce(false)).toEqual([])
    expect(await startOnce(true)).toEqual([
      expect.stringMatching(/^the last start on this database used the cache in process/),
    ])
  })
})
