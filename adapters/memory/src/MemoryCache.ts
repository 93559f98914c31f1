/**
 * The Cache port in process memory: values with expiry, fixed-window counters and publish/subscribe between the
 * fibers of one process. It is the default when no Redis is configured, and the reference the Redis adapter is
 * held to by the same contract suite. Nothing here crosses a process boundary: instances do not share it.
 *
 * The store is bounded in entries and in bytes (`COFFER_CACHE_MAX_ENTRIES`, `COFFER_CACHE_MAX_BYTES`): a caller
 * writing ever new keys (a reader looping over made-up versions, say) would otherwise grow the process without
 * limit. When a write goes over either bound, the entries written longest ago leave first. Every user of the
 * port already treats a missing entry as "ask the store", so an early eviction costs a round trip, never a
 * wrong answer.
 */
import { Cache } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

interface Entry {
  value: string
  /** Epoch milliseconds at which the entry is gone; `undefined` keeps it until it is deleted. */
  expiresAt: number | undefined
}

interface Topic {
  readonly pubsub: PubSub.PubSub<string>
  listeners: number
}

/**
 * Expired entries are dropped when read; this sweep catches the ones nobody reads again (a rate-limit window of a
 * client that went away), so memory follows the live keys rather than every key ever written.
 */
const sweepEvery = "10 seconds"

/**
 * Redis keeps whole milliseconds and refuses a TTL below one; rounding up the same way keeps both adapters
 * equal and never lets a key expire sooner than asked.
 */
const expiryFrom = (now: number, ttlMs: number) => now + Math.max(1, Math.ceil(ttlMs))

/** How much the cache may hold; over either bound, the oldest entries are dropped. */
export interface Limits {
  readonly maxEntries: number
  /** Counted as two bytes per UTF-16 code unit of each key and value: what V8 holds for them at most. */
  readonly maxBytes: number
}

export const defaultLimits: Limits = {
  maxEntries: 100_000,
  maxBytes: 64 * 1024 * 1024,
}

const sizeOf = (key: string, value: string) => 2 * (key.length + value.length)

/**
 * The cache, and a way to empty it: what an instance held may be out of date once it has missed other instances'
 * invalidations (`@coffer/adapter-postgres` PgPubSub, after its connection was lost), and an empty cache only costs
 * each key one read of the store. Subscriptions are not touched.
 */
export type MemoryCache = Cache.Cache["Service"] & { readonly clear: Effect.Effect<void> }

/** Builds a cache held to `limits`; the sweep runs until the scope closes. */
export const makeWith = (limits: Limits): Effect.Effect<MemoryCache, never, Scope.Scope> =>
  Effect.gen(function* () {
    // Insertion order is write order (a rewrite moves the key to the end), so the first key is the oldest.
    const entries = new Map<string, Entry>()
    const topics = new Map<string, Topic>()
    let bytes = 0

    const remove = (key: string): void => {
      const entry = entries.get(key)
      if (entry === undefined) return
      bytes -= sizeOf(key, entry.value)
      entries.delete(key)
    }

    const store = (key: string, entry: Entry): void => {
      remove(key)
      entries.set(key, entry)
      bytes += sizeOf(key, entry.value)
      for (const oldest of entries.keys()) {
        if (entries.size <= limits.maxEntries && bytes <= limits.maxBytes) break
        remove(oldest)
      }
    }

    // Every operation is one synchronous step, so nothing can interleave with it: that is what makes
    // `increment` atomic here.
    const atNow = <A>(f: (now: number) => A): Effect.Effect<A> =>
      Effect.clockWith((clock) => Effect.sync(() => f(clock.currentTimeMillisUnsafe())))

    const live = (key: string, now: number): Entry | undefined => {
      const entry = entries.get(key)
      if (entry?.expiresAt !== undefined && entry.expiresAt <= now) {
        remove(key)
        return undefined
      }
      return entry
    }

    yield* atNow((now) => {
      for (const [key, entry] of entries) if (entry.expiresAt !== undefined && entry.expiresAt <= now) remove(key)
    }).pipe(Effect.repeat(Schedule.spaced(sweepEvery)), Effect.forkScoped)

    const increment = (key: string, ttlMs: number) =>
      atNow((now) => {
        const entry = live(key, now)
        if (entry === undefined) {
          store(key, { value: "1", expiresAt: expiryFrom(now, ttlMs) })
          return Effect.succeed(1)
        }
        const count = Number(entry.value) + 1
        // A non-integer value under a counter key is a caller's bug, not an outage: it must not read as 503.
        if (!Number.isSafeInteger(count)) return Effect.die(new Error("Cache.increment: the key holds a non-integer"))
        // A counter keeps its place in the eviction order: its window started when it was first written.
        bytes += sizeOf(key, String(count)) - sizeOf(key, entry.value)
        entry.value = String(count)
        // A counter left without expiry (written by `set`) would otherwise never reset: it gets a window now.
        entry.expiresAt ??= expiryFrom(now, ttlMs)
        return Effect.succeed(count)
      }).pipe(Effect.flatten)

    const subscribe = (channel: string) =>
      Effect.gen(function* () {
        const fresh = yield* PubSub.unbounded<string>()
        const topic = yield* Effect.acquireRelease(
          Effect.sync(() => {
            const topic = topics.get(channel) ?? { pubsub: fresh, listeners: 0 }
            topics.set(channel, topic)
            topic.listeners += 1
            return topic
          }),
          (topic) =>
            Effect.sync(() => {
              topic.listeners -= 1
              if (topic.listeners === 0 && topics.get(channel) === topic) topics.delete(channel)
            }),
        )
        const subscription = yield* PubSub.subscribe(topic.pubsub)
        return Stream.fromSubscription(subscription)
      })

    return Object.assign(
      Cache.Cache.of({
        get: (key) => atNow((now) => live(key, now)?.value),
        getMany: (keys) => atNow((now) => keys.map((key) => live(key, now)?.value)),
        set: (key, value, ttlMs) =>
          atNow((now) => {
            store(key, { value, expiresAt: ttlMs === undefined ? undefined : expiryFrom(now, ttlMs) })
          }),
        delete: (key) =>
          Effect.sync(() => {
            remove(key)
          }),
        increment,
        ttl: (key) =>
          atNow((now) => {
            const expiresAt = live(key, now)?.expiresAt
            return expiresAt === undefined ? undefined : expiresAt - now
          }),
        // Synchronous, so a publish can never meet a topic half torn down; with no listener it goes nowhere, as in Redis.
        publish: (channel, message) =>
          Effect.sync(() => {
            const topic = topics.get(channel)
            if (topic !== undefined) PubSub.publishUnsafe(topic.pubsub, message)
          }),
        subscribe,
      }),
      {
        clear: Effect.sync(() => {
          entries.clear()
          bytes = 0
        }),
      },
    )
  })

/** A cache with the default limits. */
export const make: Effect.Effect<MemoryCache, never, Scope.Scope> = makeWith(defaultLimits)

/** The in-memory Cache held to `limits`; its state lives as long as the layer. */
export const layerWith = (limits: Limits): Layer.Layer<Cache.Cache> => Layer.effect(Cache.Cache, makeWith(limits))

/** The in-memory Cache with the default limits. */
export const layer: Layer.Layer<Cache.Cache> = layerWith(defaultLimits)
