/**
 * The Cache contract: the rules written on the port (`core/kernel/src/Cache.ts`), as vitest tests that every
 * Cache adapter runs. Each test builds its own layer, so it starts from an empty store and leaves nothing behind
 * for the next one. Expiry is checked against real time. Every "still there" check has about a second of slack
 * (TTLs of 1 to 2 s), so a loaded machine that pauses the test for hundreds of milliseconds does not fail it; the
 * "gone" checks only need a sleep to last at least as long as asked, which it always does.
 */
const SLACK = 1_000

import { Cache } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { describe, expect, it } from "vitest"

/** Builds `layer` and runs `program` in one scope; the program's own resources close before the layer's. */
export const runWithCache = <A, E, LE>(
  layer: Layer.Layer<Cache.Cache, LE>,
  program: Effect.Effect<A, E, Cache.Cache | Scope.Scope>,
): Promise<A> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const context = yield* Layer.build(layer)
        return yield* Effect.provideContext(program, context)
      }),
    ),
  )

/** Waits until `done()` holds, checking every few milliseconds; fails after `timeoutMs`. */
export const cacheEventually = (what: string, done: () => boolean, timeoutMs = 2_000): Effect.Effect<void> =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (!done()) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("5 millis")
    }
  })

/** Subscribes and collects what the stream yields, in order, in a fiber of the current scope. */
export const collectChannel = (channel: string) =>
  Effect.gen(function* () {
    const cache = yield* Cache.Cache
    const received: Array<string> = []
    const stream = yield* cache.subscribe(channel)
    const fiber = yield* stream.pipe(
      Stream.runForEach((message) => Effect.sync(() => received.push(message))),
      Effect.forkScoped,
    )
    return { received, fiber }
  })

export const cacheSuite = (name: string, makeLayer: () => Layer.Layer<Cache.Cache, unknown>) => {
  const run = <A, E>(program: Effect.Effect<A, E, Cache.Cache | Scope.Scope>) => runWithCache(makeLayer(), program)

  describe(`Cache contract: ${name}`, () => {
    it("gets what was set, overwrites, and deletes at once", () =>
      run(
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          expect(yield* cache.get("a")).toBeUndefined()
          yield* cache.set("a", "1")
          yield* cache.set("b", "")
          expect(yield* cache.get("a")).toBe("1")
          // An empty value is a value, not an absence.
          expect(yield* cache.get("b")).toBe("")
          yield* cache.set("a", "2")
          expect(yield* cache.get("a")).toBe("2")
          yield* cache.delete("a")
          expect(yield* cache.get("a")).toBeUndefined()
          expect(yield* cache.get("b")).toBe("")
          yield* cache.delete("never-set")
        }),
      ))

    it("gets many keys at once, in the order asked, absent and expired ones as undefined", () =>
      run(
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          expect(yield* cache.getMany([])).toEqual([])
          yield* cache.set("a", "1")
          yield* cache.set("b", "")
          yield* cache.set("brief", "x", 1)
          yield* Effect.sleep("20 millis")
          expect(yield* cache.getMany(["b", "missing", "a", "brief", "a"])).toEqual([
            "",
            undefined,
            "1",
            undefined,
            "1",
          ])
          yield* cache.delete("a")
          expect(yield* cache.getMany(["a", "b"])).toEqual([undefined, ""])
        }),
      ))

    it("keeps unicode keys and values intact", () =>
      run(
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          const value = "значение ✓ 日本語 🔑 e\u0301 \u0000 end"
          yield* cache.set("ключ:🔑", value)
          yield* cache.set("ключ:🔒", "other")
          expect(yield* cache.get("ключ:🔑")).toBe(value)
          expect(yield* cache.get("ключ:🔒")).toBe("other")
        }),
      ))

    it("expires a value after its TTL and keeps one without TTL", () =>
      run(
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          yield* cache.set("short", "v", SLACK)
          yield* cache.set("forever", "v")
          yield* cache.set("reset", "v", SLACK)
          // Setting again without a TTL removes the earlier one.
          yield* cache.set("reset", "w")
          expect(yield* cache.get("short")).toBe("v")
          yield* Effect.sleep(SLACK + 100)
          expect(yield* cache.get("short")).toBeUndefined()
          expect(yield* cache.ttl("short")).toBeUndefined()
          expect(yield* cache.get("forever")).toBe("v")
          expect(yield* cache.get("reset")).toBe("w")
        }),
      ))

    it("reports the time left, and nothing for a missing key or one without expiry", () =>
      run(
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          yield* cache.set("timed", "v", 10_000)
          yield* cache.set("plain", "v")
          const left = yield* cache.ttl("timed")
          expect(left).toBeGreaterThan(9_000)
          expect(left).toBeLessThanOrEqual(10_000)
          expect(yield* cache.ttl("plain")).toBeUndefined()
          expect(yield* cache.ttl("missing")).toBeUndefined()
          yield* cache.delete("timed")
          expect(yield* cache.ttl("timed")).toBeUndefined()
        }),
      ))

    it("counts 100 concurrent increments exactly once each", () =>
      run(
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          const counts = yield* Effect.forEach(
            Array.from({ length: 100 }, () => "hits"),
            (key) => cache.increment(key, 10_000),
            { concurrency: "unbounded" },
          )
          // Every count from 1 to 100 handed out once: no two callers saw the same value.
          expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1))
          expect(yield* cache.get("hits")).toBe("100")
          expect(yield* cache.increment("other", 10_000)).toBe(1)
        }),
      ))

    it("keeps a fixed window: later increments do not extend it, and it restarts at 1", () =>
      run(
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          const window = 2 * SLACK
          expect(yield* cache.increment("window", window)).toBe(1)
          const first = yield* cache.ttl("window")
          expect(first).toBeGreaterThan(0)
          expect(first).toBeLessThanOrEqual(window)
          yield* Effect.sleep(SLACK)
          expect(yield* cache.increment("window", window)).toBe(2)
          // A sliding window would be back near `window` here.
          expect(yield* cache.ttl("window")).toBeLessThanOrEqual(window - SLACK)
          yield* Effect.sleep(SLACK + 100)
          expect(yield* cache.get("window")).toBeUndefined()
          expect(yield* cache.increment("window", window)).toBe(1)
        }),
      ))

    it("gives a window to a counter that has no expiry", () =>
      run(
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          yield* cache.set("legacy", "5")
          expect(yield* cache.increment("legacy", SLACK)).toBe(6)
          const left = yield* cache.ttl("legacy")
          expect(left).toBeGreaterThan(0)
          expect(left).toBeLessThanOrEqual(SLACK)
          yield* Effect.sleep(SLACK + 100)
          expect(yield* cache.increment("legacy", SLACK)).toBe(1)
        }),
      ))

    it("delivers every message in order to each subscriber of the channel only", () =>
      run(
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          const first = yield* collectChannel("news")
          const second = yield* collectChannel("news")
          const elsewhere = yield* collectChannel("sport")
          const messages = Array.from({ length: 20 }, (_, i) => `message ${i} ✓`)
          for (const message of messages) yield* cache.publish("news", message)
          yield* cache.publish("sport", "goal")
          yield* cacheEventually(
            "both subscribers",
            () => first.received.length === 20 && second.received.length === 20,
          )
          yield* cacheEventually("the other channel", () => elsewhere.received.length === 1)
          expect(first.received).toEqual(messages)
          expect(second.received).toEqual(messages)
          expect(elsewhere.received).toEqual(["goal"])
        }),
      ))

    it("publishes to a channel nobody listens to without failing", () =>
      run(
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          yield* cache.publish("nobody", "hello")
        }),
      ))

    it("stops delivering, and ends the stream, once the subscription's scope closes", () =>
      run(
        Effect.gen(function* () {
          const cache = yield* Cache.Cache
          const staying = yield* collectChannel("updates")
          const leaving = yield* Effect.scoped(
            Effect.gen(function* () {
              const received: Array<string> = []
              const stream = yield* cache.subscribe("updates")
              // Runs beyond this scope, so the test sees what the stream does after it closes.
              const fiber = yield* stream.pipe(
                Stream.runForEach((message) => Effect.sync(() => received.push(message))),
                Effect.forkDetach,
              )
              yield* cache.publish("updates", "before")
              yield* cacheEventually("the first message", () => received.length === 1)
              return { received, fiber }
            }),
          )
          yield* cache.publish("updates", "after")
          yield* cacheEventually("the subscriber that stayed", () => staying.received.length === 2)
          yield* Fiber.join(leaving.fiber).pipe(Effect.timeout("1 second"))
          expect(leaving.received).toEqual(["before"])
          expect(staying.received).toEqual(["before", "after"])
        }),
      ))
  })
}
