/**
 * The in-memory Cache against the Cache contract (each test gets a fresh layer, hence an empty store), and its
 * bounds: flooded with ever new keys, it keeps at most its entries and bytes, dropping the oldest written first.
 */
import { cacheSuite, runWithCache } from "@coffer/contract"
import { Cache } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { MemoryCache } from "./index.js"

cacheSuite("MemoryCache", () => MemoryCache.layer)

/** Which of `keys` the cache still answers. */
const present = (keys: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const cache = yield* Cache.Cache
    const found: Array<string> = []
    for (const key of keys) if ((yield* cache.get(key)) !== undefined) found.push(key)
    return found
  })

describe("MemoryCache bounds", () => {
  it("holds at most maxEntries, dropping the oldest written first, whatever is flooded in", async () => {
    const keys = Array.from({ length: 5_000 }, (_, i) => `flood:${i}`)
    const kept = await runWithCache(
      MemoryCache.layerWith({ maxEntries: 100, maxBytes: 1_000_000 }),
      Effect.gen(function* () {
        const cache = yield* Cache.Cache
        yield* cache.set("early", "x")
        for (const key of keys) yield* cache.set(key, "v", 60_000)
        return yield* present(["early", ...keys])
      }),
    )
    expect(kept).toEqual(keys.slice(-100))
  })

  it("holds at most maxBytes of keys and values; rewriting a key makes it the newest", async () => {
    // Each entry below is 2 × (8 + 1,000) bytes; 10 of them fit in 20,160 bytes, 11 do not.
    const value = "v".repeat(1_000)
    const keys = Array.from({ length: 200 }, (_, i) => `k:${String(i).padStart(6, "0")}`)
    const kept = await runWithCache(
      MemoryCache.layerWith({ maxEntries: 1_000, maxBytes: 20_160 }),
      Effect.gen(function* () {
        const cache = yield* Cache.Cache
        for (const key of keys.slice(0, 10)) yield* cache.set(key, value)
        // Rewritten, the first key outlives the nine written after it.
        yield* cache.set(keys[0]!, value)
        yield* cache.set(keys[10]!, value)
        const afterOne = yield* present(keys.slice(0, 11))
        for (const key of keys.slice(11)) yield* cache.set(key, value)
        return { afterOne, afterFlood: yield* present(keys) }
      }),
    )
    expect(kept.afterOne).toEqual([keys[0], ...keys.slice(2, 11)])
    expect(kept.afterFlood).toEqual(keys.slice(-10))
  })

  it("drops a single value larger than maxBytes instead of keeping it, and counters stay bounded", async () => {
    const result = await runWithCache(
      MemoryCache.layerWith({ maxEntries: 10, maxBytes: 1_000 }),
      Effect.gen(function* () {
        const cache = yield* Cache.Cache
        yield* cache.set("small", "s")
        yield* cache.set("huge", "h".repeat(1_000))
        for (let i = 0; i < 50; i++) yield* cache.increment(`count:${i}`, 60_000)
        return {
          huge: yield* cache.get("huge"),
          counters: (yield* present(Array.from({ length: 50 }, (_, i) => `count:${i}`))).length,
          last: yield* cache.increment("count:49", 60_000),
        }
      }),
    )
    expect(result).toEqual({ huge: undefined, counters: 10, last: 2 })
  })
})
