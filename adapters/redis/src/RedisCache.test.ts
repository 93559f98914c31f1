/**
 * The Redis Cache against the Cache contract, then what only a networked store can get wrong: namespacing by
 * prefix, failing fast when Redis is unreachable, and healing after an outage without a rebuild. Outages are made
 * with a TCP proxy between the client and the real Redis. Every key lives under a prefix of this run and is
 * deleted afterwards.
 */

import { createServer } from "node:net"
import {
  cacheEventually,
  cacheSuite,
  collectChannel,
  hasRedis,
  redisUrl,
  runId,
  runWithCache,
  startTcpProxy,
} from "@coffer/contract"
import { Cache, type StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import { Redis } from "ioredis"
import { afterAll, describe, expect, it } from "vitest"
import { RedisCache } from "./index.js"

const run = runId("cache")
let tests = 0
const freshPrefix = () => `${run}:${++tests}:`

/** A bound on "fails fast" that still shows the call did not hang (the adapter's budget is 500 ms). */
const fastMs = 1_500

/** Runs `effect`, expecting StoreUnavailable, and says how long the failure took. */
const timedFailure = <A>(effect: Effect.Effect<A, StoreUnavailable>) =>
  Effect.gen(function* () {
    const start = performance.now()
    const error = yield* Effect.flip(effect)
    return { error, ms: performance.now() - start }
  })

const expectFastOutage = (outcome: { error: StoreUnavailable; ms: number }) => {
  expect(outcome.error._tag).toBe("StoreUnavailable")
  expect(outcome.error.store).toBe("cache")
  expect(outcome.ms).toBeLessThan(fastMs)
}

/** A port nothing listens on: bound once by us, then released. */
const closedPort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject()))
    })
  })

const target = new URL(redisUrl)

describe("the database a Redis URL names", () => {
  it("is its path, else its db parameter, else 0; anything but a non-negative integer is refused", () => {
    for (const [url, index] of [
      ["redis://cache:6379", 0],
      ["redis://cache:6379/", 0],
      ["redis://:pw@cache:6379/7", 7],
      ["rediss://cache/15", 15],
      ["redis://cache?db=3", 3],
    ] as const) {
      expect([url, RedisCache.databaseIndex(url)]).toEqual([url, Result.succeed(index)])
    }
    const problem = (url: string) => Result.getFailure(RedisCache.databaseIndex(url)).pipe(Option.getOrUndefined)
    const expected = "expected a database index, a non-negative integer (redis://host:6379/0), got"
    // ioredis reads the path with parseInt: `/abc` was database 0, `/1x` database 1, `/-1` a SELECT refused later.
    for (const path of ["/abc", "/1x", "/-1", "/1.5", "/0/1", "/%31", "/99999999999999999999"]) {
      expect(problem(`redis://:pw@cache:6379${path}`)).toBe(`${expected} the path ${JSON.stringify(path)}`)
    }
    expect(problem("redis://cache?db=x&password=pw")).toBe(`${expected} db="x"`)
  })
})

describe.runIf(await hasRedis())("RedisCache", () => {
  cacheSuite("RedisCache", () => RedisCache.layer({ url: redisUrl, prefix: freshPrefix() }))

  afterAll(async () => {
    const redis = new Redis(redisUrl)
    try {
      let cursor = "0"
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", `${run}:*`, "COUNT", 1000)
        if (keys.length > 0) await redis.del(...keys)
        cursor = next
      } while (cursor !== "0")
    } finally {
      await redis.quit()
    }
  })

  it("puts every key and channel under its prefix", async () => {
    const prefix = freshPrefix()
    const raw = new Redis(redisUrl)
    try {
      await runWithCache(
        RedisCache.layer({ url: redisUrl, prefix }),
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          yield* cache.set("k", "v")
          expect(yield* Effect.promise(() => raw.get(`${prefix}k`))).toBe("v")
          expect(yield* Effect.promise(() => raw.exists("k"))).toBe(0)
          const { received } = yield* collectChannel("ch")
          yield* Effect.promise(() => raw.publish("ch", "unprefixed"))
          yield* Effect.promise(() => raw.publish(`${prefix}ch`, "prefixed"))
          yield* cacheEventually("the prefixed message", () => received.length > 0)
          expect(received).toEqual(["prefixed"])
        }),
      )
      // Another prefix on the same Redis sees none of it.
      await runWithCache(
        RedisCache.layer({ url: redisUrl, prefix: freshPrefix() }),
        Effect.gen(function* () {
          expect(yield* (yield* Cache.Cache).get("k")).toBeUndefined()
        }),
      )
    } finally {
      await raw.quit()
    }
  })

  it("answers the getMany calls of one turn with one MGET of their distinct keys", async () => {
    const prefix = freshPrefix()
    const raw = new Redis(redisUrl)
    const monitor = await raw.monitor()
    const mgets: Array<Array<string>> = []
    monitor.on("monitor", (_time: string, args: Array<string>) => {
      if (args[0]?.toLowerCase() === "mget" && args[1]?.startsWith(prefix)) mgets.push(args.slice(1))
    })
    try {
      await runWithCache(
        RedisCache.layer({ url: redisUrl, prefix }),
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          yield* cache.set("a", "1")
          yield* cache.set("g", "7")
          const answers = yield* Effect.all(
            [cache.getMany(["a", "g"]), cache.getMany(["b", "g"]), cache.getMany(["g"])],
            {
              concurrency: "unbounded",
            },
          )
          expect(answers).toEqual([["1", "7"], [undefined, "7"], ["7"]])
        }),
      )
      for (let waited = 0; mgets.length === 0 && waited < 2_000; waited += 10)
        await new Promise((r) => setTimeout(r, 10))
      expect(mgets).toEqual([[`${prefix}a`, `${prefix}g`, `${prefix}b`]])
    } finally {
      monitor.disconnect()
      await raw.quit()
    }
  })

  it("unsubscribes from Redis once the last subscriber's scope closes", async () => {
    const prefix = freshPrefix()
    const raw = new Redis(redisUrl)
    const listeners = async () => {
      const reply = (await raw.call("PUBSUB", "NUMSUB", `${prefix}ch`)) as [string, number]
      return reply[1]
    }
    try {
      await runWithCache(
        RedisCache.layer({ url: redisUrl, prefix }),
        Effect.gen(function* () {
          yield* Effect.scoped(
            Effect.gen(function* () {
              yield* collectChannel("ch")
              yield* collectChannel("ch")
              expect(yield* Effect.promise(listeners)).toBe(1)
            }),
          )
          expect(yield* Effect.promise(listeners)).toBe(0)
        }),
      )
    } finally {
      await raw.quit()
    }
  })

  it("builds while Redis is unreachable, then fails every call fast with StoreUnavailable", async () => {
    const password = "s3cret-in-the-url"
    const url = Redacted.make(`redis://:${password}@127.0.0.1:${await closedPort()}`)
    const logs: Array<string> = []
    const capture = Logger.layer([Logger.make((options) => void logs.push(String(options.message)))])
    const start = performance.now()
    await runWithCache(
      Layer.provide(RedisCache.layer({ url, prefix: freshPrefix() }), capture),
      Effect.gen(function* () {
        expect(performance.now() - start).toBeLessThan(fastMs)
        const cache = yield* Cache.Cache
        const outcomes = [
          yield* timedFailure(cache.get("k")),
          yield* timedFailure(cache.getMany(["k", "l"])),
          yield* timedFailure(cache.set("k", "v", 1_000)),
          yield* timedFailure(cache.delete("k")),
          yield* timedFailure(cache.increment("k", 1_000)),
          yield* timedFailure(cache.ttl("k")),
          yield* timedFailure(cache.publish("ch", "m")),
          yield* timedFailure(Effect.scoped(cache.subscribe("ch"))),
        ]
        for (const outcome of outcomes) {
          expectFastOutage(outcome)
          expect(JSON.stringify(outcome.error)).not.toContain(password)
          expect(outcome.error.message).not.toContain(password)
        }
        yield* cacheEventually("the outage warning", () => logs.some((line) => line.includes("unavailable")))
      }),
    )
    expect(logs.join("\n")).not.toContain(password)
  })

  /** The test's Redis URL naming database `index` instead (its password kept). */
  const inDatabase = (index: number) => {
    const url = new URL(redisUrl)
    url.pathname = `/${index}`
    return url.href
  }

  /** The first database index the test's Redis refuses (its `databases` setting). */
  const refusedIndex = async () => {
    const raw = new Redis(redisUrl)
    try {
      const [, databases] = (await raw.config("GET", "databases")) as [string, string]
      return Number(databases)
    } finally {
      await raw.quit()
    }
  }

  it("refuses to build on a database Redis refuses, naming it and Redis's answer, never the URL", async () => {
    const index = await refusedIndex()
    const built = await Effect.runPromise(
      Effect.flip(Effect.scoped(Layer.build(RedisCache.layer({ url: Redacted.make(inDatabase(index)) })))),
    )
    expect(built).toMatchObject({
      _tag: "StoreUnavailable",
      store: "cache",
      message:
        `Redis refused database ${index}, which the URL names (ERR DB index is out of range); name one the ` +
        "server has (its `databases` setting, 16 by default: 0 to 15)",
    })
    expect(JSON.stringify(built)).not.toContain(target.host)
  })

  it("refuses to build on a URL whose database is no index, before connecting", async () => {
    const built = await Effect.runPromise(
      Effect.flip(Effect.scoped(Layer.build(RedisCache.layer({ url: inDatabase(0).replace(/\/0$/, "/abc") })))),
    )
    expect(built).toMatchObject({
      _tag: "StoreUnavailable",
      store: "cache",
      message:
        'Redis URL: expected a database index, a non-negative integer (redis://host:6379/0), got the path "/abc"',
    })
  })

  it("fails every call, never working in another database, when Redis comes up refusing the URL's database", async () => {
    const index = await refusedIndex()
    // Where ioredis went on after the refusal.
    const zero = new Redis(inDatabase(0))
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) })
    proxy.cut()
    const prefix = freshPrefix()
    const logs: Array<string> = []
    const capture = Logger.layer([Logger.make((options) => void logs.push(String(options.message)))])
    try {
      await runWithCache(
        Layer.provide(RedisCache.layer({ url: `redis://${proxy.host}:${proxy.port}/${index}`, prefix }), capture),
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          expectFastOutage(yield* timedFailure(cache.set("k", "v")))
          proxy.restore()
          yield* cacheEventually("the refusal", () => logs.some((line) => line.includes("refused")), 10_000)
          expect(logs.filter((line) => line.includes("refused"))).toEqual([
            `cache: Redis refused database ${index} of its URL (ERR DB index is out of range); every call fails ` +
              "until the service restarts with an index the server has",
          ])
          // Pub/sub is not per database; every command that is fails, however often it is tried.
          for (let attempt = 0; attempt < 10; attempt++) {
            expectFastOutage(yield* timedFailure(cache.set("k", "v")))
            expectFastOutage(yield* timedFailure(cache.increment("n", 1_000)))
            yield* Effect.sleep("50 millis")
          }
        }),
      )
      // ioredis went on in database 0 after the refusal: nothing of this cache may be there.
      expect(await zero.keys(`${prefix}*`)).toEqual([])
    } finally {
      await proxy.close()
      await zero.quit()
    }
  })

  it("starts with Redis down and serves once it comes up, without a rebuild", async () => {
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) })
    proxy.cut()
    try {
      await runWithCache(
        RedisCache.layer({ url: `redis://${proxy.host}:${proxy.port}`, prefix: freshPrefix() }),
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          expectFastOutage(yield* timedFailure(cache.set("k", "v")))
          proxy.restore()
          yield* cache.set("k", "v").pipe(Effect.retry(Schedule.spaced("50 millis")), Effect.timeout("10 seconds"))
          expect(yield* cache.get("k")).toBe("v")
        }),
      )
    } finally {
      await proxy.close()
    }
  })

  it("fails fast while the connection is cut and recovers afterwards, subscriptions included", async () => {
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) })
    try {
      await runWithCache(
        RedisCache.layer({ url: `redis://${proxy.host}:${proxy.port}`, prefix: freshPrefix() }),
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          yield* cache.set("k", "v")
          const { received } = yield* collectChannel("events")
          yield* cache.publish("events", "before")
          yield* cacheEventually("the message before the outage", () => received.length === 1)

          proxy.cut()
          expectFastOutage(yield* timedFailure(cache.get("k")))
          expectFastOutage(yield* timedFailure(cache.getMany(["k", "n"])))
          expectFastOutage(yield* timedFailure(cache.increment("n", 10_000)))
          expectFastOutage(yield* timedFailure(cache.publish("events", "lost")))

          proxy.restore()
          const value = yield* cache
            .get("k")
            .pipe(Effect.retry(Schedule.spaced("50 millis")), Effect.timeout("10 seconds"))
          expect(value).toBe("v")
          expect(yield* cache.increment("n", 10_000)).toBe(1)
          // The subscriber connection comes back on its own schedule: publish until the stream hears one.
          let sent = 0
          yield* Effect.gen(function* () {
            sent += 1
            yield* cache.publish("events", `after ${sent}`)
            yield* Effect.sleep("50 millis")
          }).pipe(Effect.repeat({ until: () => received.length > 1 }), Effect.timeout("10 seconds"))
          expect(received[0]).toBe("before")
          expect(received[1]).toMatch(/^after \d+$/)
        }),
      )
    } finally {
      await proxy.close()
    }
  })

  it("fails fast while Redis stops answering, subscribing included, and recovers once it answers again", async () => {
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) })
    try {
      await runWithCache(
        RedisCache.layer({ url: `redis://${proxy.host}:${proxy.port}`, prefix: freshPrefix() }),
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          yield* cache.set("k", "v")
          proxy.stall()
          expectFastOutage(yield* timedFailure(cache.get("k")))
          expectFastOutage(yield* timedFailure(cache.set("k", "w")))
          // Without Redis's acknowledgement a subscription is not active, so it must not report success.
          expectFastOutage(yield* timedFailure(Effect.scoped(cache.subscribe("ch"))))
          proxy.restore()
          const value = yield* cache
            .get("k")
            .pipe(Effect.retry(Schedule.spaced("50 millis")), Effect.timeout("10 seconds"))
          // The SET sent during the stall may or may not have reached Redis: only its failure was promised.
          expect(["v", "w"]).toContain(value)
          yield* cache.set("k", "x")
          expect(yield* cache.get("k")).toBe("x")
          const { received } = yield* collectChannel("ch").pipe(
            Effect.retry(Schedule.spaced("50 millis")),
            Effect.timeout("10 seconds"),
          )
          yield* cache.publish("ch", "heard")
          yield* cacheEventually("the message after the stall", () => received.length === 1)
          expect(received).toEqual(["heard"])
        }),
      )
    } finally {
      await proxy.close()
    }
  })
})
