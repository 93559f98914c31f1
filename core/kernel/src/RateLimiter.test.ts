/**
 * Rate limits over the real in-memory Cache (imported from its sources: the kernel depends on no adapter, and
 * nothing a test imports reaches the build), and over a cache that is down.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import * as MemoryCache from "../../../adapters/memory/src/MemoryCache.js"
import { Cache } from "./Cache.js"
import * as RateLimiter from "./RateLimiter.js"
import { StoreUnavailable } from "./StoreUnavailable.js"

const run = <A, E>(effect: Effect.Effect<A, E, Cache>) => Effect.runPromise(Effect.provide(effect, MemoryCache.layer))

const attempts = (count: number, attempt: RateLimiter.Attempt) =>
  Effect.forEach(Array.from({ length: count }), () => Effect.result(RateLimiter.consume(attempt)))

describe("RateLimiter.consume", () => {
  it("allows `limit` attempts per client and window, then fails with TooManyRequests and a Retry-After", async () => {
    const outcomes = await run(attempts(4, { group: "dev-login", client: "10.0.0.1", limit: 3 }))
    expect(outcomes.slice(0, 3).every((outcome) => outcome._tag === "Success")).toBe(true)
    const refused = outcomes[3]
    expect(refused?._tag).toBe("Failure")
    if (refused?._tag !== "Failure") return
    expect(refused.failure._tag).toBe("TooManyRequests")
    if (refused.failure._tag !== "TooManyRequests") return
    expect(refused.failure.retryAfterSeconds).toBeGreaterThanOrEqual(59)
    expect(refused.failure.retryAfterSeconds).toBeLessThanOrEqual(60)
  })

  it("counts each client address and each path group on its own", async () => {
    const outcomes = await run(
      Effect.gen(function* () {
        yield* attempts(2, { group: "dev-login", client: "10.0.0.1", limit: 2 })
        return {
          sameClient: yield* Effect.result(RateLimiter.consume({ group: "dev-login", client: "10.0.0.1", limit: 2 })),
          otherClient: yield* Effect.result(RateLimiter.consume({ group: "dev-login", client: "10.0.0.2", limit: 2 })),
          otherGroup: yield* Effect.result(RateLimiter.consume({ group: "oidc", client: "10.0.0.1", limit: 2 })),
        }
      }),
    )
    expect(outcomes.sameClient._tag).toBe("Failure")
    expect(outcomes.otherClient._tag).toBe("Success")
    expect(outcomes.otherGroup._tag).toBe("Success")
  })

  it("counts requests from unknown addresses as one client", async () => {
    const outcomes = await run(attempts(2, { group: "dev-login", client: undefined, limit: 1 }))
    expect(outcomes.map((outcome) => outcome._tag)).toEqual(["Success", "Failure"])
  })

  it("is off at a limit of 0, without touching the cache", async () => {
    const down = Layer.succeed(Cache, {
      get: () => Effect.die("unused"),
      getMany: () => Effect.die("unused"),
      set: () => Effect.die("unused"),
      delete: () => Effect.die("unused"),
      increment: () => Effect.die("the limiter must not count when it is off"),
      ttl: () => Effect.die("unused"),
      publish: () => Effect.die("unused"),
      subscribe: () => Effect.die("unused"),
    })
    const outcomes = await Effect.runPromise(
      Effect.provide(attempts(100, { group: "dev-login", client: "10.0.0.1", limit: 0 }), down),
    )
    expect(outcomes.every((outcome) => outcome._tag === "Success")).toBe(true)
  })

  it("fails closed with StoreUnavailable when the cache is down", async () => {
    const unavailable = new StoreUnavailable({ store: "cache", message: "connection refused" })
    const down = Layer.succeed(Cache, {
      get: () => Effect.fail(unavailable),
      getMany: () => Effect.fail(unavailable),
      set: () => Effect.fail(unavailable),
      delete: () => Effect.fail(unavailable),
      increment: () => Effect.fail(unavailable),
      ttl: () => Effect.fail(unavailable),
      publish: () => Effect.fail(unavailable),
      subscribe: () => Effect.fail(unavailable),
    })
    const error = await Effect.runPromise(
      Effect.flip(Effect.provide(RateLimiter.consume({ group: "dev-login", client: "10.0.0.1", limit: 5 }), down)),
    )
    expect(error._tag).toBe("StoreUnavailable")
  })
})
