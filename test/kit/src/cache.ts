/**
 * Caches for tests, all behind one switch: while `down` is set, every call fails as during a Redis outage.
 *
 * - `manualCache(now)`: a cache in memory whose expiry follows a clock the test moves (the kernel's manual
 *   `Clock`), for use-case tests that step over rate-limit windows and TTLs.
 * - `switchableCache(state)`: the real in-memory adapter behind the switch, for tests of the apps.
 * - `cacheDown`: the adapter with the switch off for good.
 */
import { MemoryCache } from "@coffer/adapter-memory"
import { behindSwitch, type Switch } from "@coffer/contract"
import { Cache } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"

export type { Switch }

/** The in-memory adapter behind `state`. */
export const switchableCache = (state: Switch): Layer.Layer<Cache.Cache> =>
  Layer.effect(
    Cache.Cache,
    Effect.map(MemoryCache.make, (cache) => behindSwitch(cache, state)),
  )

/** A cache whose every call fails as a Redis outage does. */
export const cacheDown: Layer.Layer<Cache.Cache> = switchableCache({ down: true })

/** A cache in memory with expiry on the clock `now`, behind a switch; `state.calls` counts every call. */
export const manualCache = (now: () => number) => {
  const entries = new Map<string, { value: string; expiresAt: number | undefined }>()
  const topics = new Map<string, PubSub.PubSub<string>>()
  const state = { down: false, calls: 0 }
  const live = (key: string) => {
    const entry = entries.get(key)
    if (entry?.expiresAt !== undefined && entry.expiresAt <= now()) {
      entries.delete(key)
      return undefined
    }
    return entry
  }
  const topic = (channel: string) => {
    const existing = topics.get(channel)
    if (existing !== undefined) return existing
    const created = Effect.runSync(PubSub.unbounded<string>())
    topics.set(channel, created)
    return created
  }
  const cache = behindSwitch(
    Cache.Cache.of({
      get: (key) => Effect.sync(() => live(key)?.value),
      getMany: (keys) => Effect.sync(() => keys.map((key) => live(key)?.value)),
      set: (key, value, ttlMs) =>
        Effect.sync(() => void entries.set(key, { value, expiresAt: ttlMs === undefined ? undefined : now() + ttlMs })),
      delete: (key) => Effect.sync(() => void entries.delete(key)),
      increment: (key, ttlMs) =>
        Effect.sync(() => {
          const entry = live(key)
          const count = entry === undefined ? 1 : Number(entry.value) + 1
          entries.set(key, { value: String(count), expiresAt: entry?.expiresAt ?? now() + ttlMs })
          return count
        }),
      ttl: (key) =>
        Effect.sync(() => {
          const expiresAt = live(key)?.expiresAt
          return expiresAt === undefined ? undefined : expiresAt - now()
        }),
      publish: (channel, message) => Effect.sync(() => void PubSub.publishUnsafe(topic(channel), message)),
      subscribe: (channel) =>
        Effect.flatMap(
          Effect.sync(() => topic(channel)),
          (pubsub) => Effect.map(PubSub.subscribe(pubsub), Stream.fromSubscription),
        ),
    }),
    state,
  )
  return { cache, entries, state }
}
