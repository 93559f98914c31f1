/**
 * The LISTEN/NOTIFY side of the Cache (several instances on one Postgres, no Redis) when the listening connection's
 * link stalls without closing (a frozen proxy, a dropped NAT entry): nothing fails, so only a probe or a timeout
 * can tell. A publish must answer (a write waits on it) and the instance must give the connection up, reopen it and
 * forget what it cached, as it does after a connection that closed. Outages are made with a TCP proxy; no database
 * is created (notifications are per database, and the messages carry a channel of this run's own).
 */
import { randomBytes } from "node:crypto"
import { hasPostgres, postgresUrl, startProxyFor } from "@coffer/contract"
import type { Cache } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { describe, expect, it } from "vitest"
import { PgPubSub } from "./index.js"

/** An in-process stand-in: what `publish` hands it (the notifications heard) and how often it was forgotten. */
const localCache = () => {
  const heard: Array<string> = []
  let forgotten = 0
  const unused = () => Effect.die("not used by PgPubSub")
  const local = {
    get: unused,
    getMany: unused,
    set: unused,
    delete: unused,
    increment: unused,
    ttl: unused,
    subscribe: unused,
    publish: (_channel: string, message: string) => Effect.sync(() => void heard.push(message)),
  } as unknown as Cache.Cache["Service"]
  return {
    local,
    heard,
    forgotten: () => forgotten,
    forget: Effect.sync(() => {
      forgotten++
    }),
  }
}

const until = async (condition: () => boolean, ms: number) => {
  const end = Date.now() + ms
  while (!condition() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 25))
  return condition()
}

describe.runIf(await hasPostgres())("PgPubSub on a link that stalls", () => {
  it("answers a publish within its timeout when the listening connection stalls, never waits on it", async () => {
    const { proxy, url } = await startProxyFor(postgresUrl, 5432)
    const scope = Effect.runSync(Scope.make())
    try {
      const a = localCache()
      const cache = await Effect.runPromise(
        Scope.provide(scope)(
          PgPubSub.make({ url, local: a.local, forget: a.forget, heartbeatMs: 60_000, timeoutMs: 300 }),
        ),
      )
      proxy.stall()
      const started = Date.now()
      const exit = await Effect.runPromise(
        Effect.exit(cache.publish("test", "while stalled").pipe(Effect.timeout("5 seconds"))),
      )
      // Failed as an outage (the write goes on and logs it), well before the test's own limit.
      expect(Date.now() - started).toBeLessThan(2_000)
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause).includes("StoreUnavailable")).toBe(true)
    } finally {
      proxy.restore()
      await Effect.runPromise(Scope.close(scope, Exit.void))
      await proxy.close()
    }
  })

  it("gives a silent listening connection up, listens again and forgets, and then hears other instances", async () => {
    const { proxy, url } = await startProxyFor(postgresUrl, 5432)
    const scope = Effect.runSync(Scope.make())
    try {
      const a = localCache()
      const b = localCache()
      await Effect.runPromise(
        Scope.provide(scope)(
          PgPubSub.make({ url, local: a.local, forget: a.forget, heartbeatMs: 200, timeoutMs: 300 }),
        ),
      )
      const cacheB = await Effect.runPromise(
        Scope.provide(scope)(PgPubSub.make({ url: postgresUrl, local: b.local, forget: b.forget })),
      )
      const before = `before ${randomBytes(6).toString("hex")}`
      await Effect.runPromise(cacheB.publish("test", before))
      expect(await until(() => a.heard.includes(before), 2_000)).toBe(true)

      proxy.stall()
      // Longer than a probe and its timeout: the connection must be found silent meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 1_200))
      proxy.restore()
      // Once when it was found silent, again once it listens.
      expect(await until(() => a.forgotten() >= 2, 5_000)).toBe(true)

      const after = `after ${randomBytes(6).toString("hex")}`
      await Effect.runPromise(cacheB.publish("test", after))
      expect(await until(() => a.heard.includes(after), 2_000)).toBe(true)
    } finally {
      proxy.restore()
      await Effect.runPromise(Scope.close(scope, Exit.void))
      await proxy.close()
    }
  })

  it("forgets what it cached as soon as the listening connection is lost, not only once it listens again", async () => {
    // An instance cut off from Postgres hears no revocation: a token revoked on another instance must not be taken
    // from its cache meanwhile (it was, for up to a minute: until the cached check expired).
    const { proxy, url } = await startProxyFor(postgresUrl, 5432)
    const scope = Effect.runSync(Scope.make())
    try {
      const a = localCache()
      await Effect.runPromise(
        Scope.provide(scope)(
          PgPubSub.make({ url, local: a.local, forget: a.forget, heartbeatMs: 60_000, timeoutMs: 300 }),
        ),
      )
      proxy.cut()
      expect(await until(() => a.forgotten() >= 1, 2_000)).toBe(true)
    } finally {
      proxy.restore()
      await Effect.runPromise(Scope.close(scope, Exit.void))
      await proxy.close()
    }
  })
})
