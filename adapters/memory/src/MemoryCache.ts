/**
 * The Cache port in process memory: values with expiry, fixed-window counters and publish/subscribe between the
 * fibers of one process. It is the default when no Redis is configured, and the reference the Redis adapter is
 * held to by the same contract suite. Nothing here crosses a process boundary: instances do not share it.
 */
import { Cache } from "@coffer/kernel"
import { Effect, Layer, PubSub, Schedule, type Scope, Stream } from "effect"

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

/** Builds the cache; the sweep runs until the scope closes. */
export const make: Effect.Effect<Cache.Cache["Service"], never, Scope.Scope> = Effect.gen(function* () {
  const entries = new Map<string, Entry>()
  const topics = new Map<string, Topic>()

  // Every operation is one synchronous step, so nothing can interleave with it: that is what makes
  // `increment` atomic here.
  const atNow = <A>(f: (now: number) => A): Effect.Effect<A> =>
    Effect.clockWith((clock) => Effect.sync(() => f(clock.currentTimeMillisUnsafe())))

  const live = (key: string, now: number): Entry | undefined => {
    const entry = entries.get(key)
    if (entry?.expiresAt !== undefined && entry.expiresAt <= now) {
      entries.delete(key)
      return undefined
    }
    return entry
  }

  yield* atNow((now) => {
    for (const [key, entry] of entries) if (entry.expiresAt !== undefined && entry.expiresAt <= now) entries.delete(key)
  }).pipe(Effect.repeat(Schedule.spaced(sweepEvery)), Effect.forkScoped)

  const increment = (key: string, ttlMs: number) =>
    atNow((now) => {
      const entry = live(key, now)
      if (entry === undefined) {
        entries.set(key, { value: "1", expiresAt: expiryFrom(now, ttlMs) })
        return Effect.succeed(1)
      }
      const count = Number(entry.value) + 1
      // A non-integer value under a counter key is a caller's bug, not an outage: it must not read as 503.
      if (!Number.isSafeInteger(count)) return Effect.die(new Error("Cache.increment: the key holds a non-integer"))
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

  return Cache.Cache.of({
    get: (key) => atNow((now) => live(key, now)?.value),
    set: (key, value, ttlMs) =>
      atNow((now) => {
        entries.set(key, { value, expiresAt: ttlMs === undefined ? undefined : expiryFrom(now, ttlMs) })
      }),
    delete: (key) =>
      Effect.sync(() => {
        entries.delete(key)
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
  })
})

/** The in-memory Cache; its state lives as long as the layer. */
export const layer: Layer.Layer<Cache.Cache> = Layer.effect(Cache.Cache, make)
