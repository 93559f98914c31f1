/**
 * Fixtures for this package's tests (not exported from the package): a Cache that can be taken down and brought
 * back, a manual clock, actors, and an environment that runs use cases on the in-memory store as a host would,
 * one runtime per "instance" over storage they share.
 */
import { Cache, Clock, Hasher, Random, StoreUnavailable } from "@coffer/kernel"
import { Effect, Layer, ManagedRuntime, PubSub, Stream } from "effect"
import type { Person, Token } from "./access.js"
import * as MemorySchemaStore from "./memory/MemorySchemaStore.js"
import { SchemaStore } from "./SchemaStore.js"
import { RevokedTokens } from "./usecases/tokenChecks.js"

/** A cache in memory with expiry on a manual clock, whose every call fails while `down` is set. */
export const makeTestCache = (now: () => number) => {
  const entries = new Map<string, { value: string; expiresAt: number | undefined }>()
  const topics = new Map<string, PubSub.PubSub<string>>()
  const state = { down: false, calls: 0 }
  const guard = <A>(f: () => A): Effect.Effect<A, StoreUnavailable> =>
    Effect.suspend(() => {
      state.calls++
      return state.down
        ? Effect.fail(new StoreUnavailable({ store: "cache", message: "the cache did not answer (test outage)" }))
        : Effect.sync(f)
    })
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
  const cache = Cache.Cache.of({
    get: (key) => guard(() => live(key)?.value),
    set: (key, value, ttlMs) =>
      guard(() => void entries.set(key, { value, expiresAt: ttlMs === undefined ? undefined : now() + ttlMs })),
    delete: (key) => guard(() => void entries.delete(key)),
    increment: (key, ttlMs) =>
      guard(() => {
        const entry = live(key)
        const count = entry === undefined ? 1 : Number(entry.value) + 1
        entries.set(key, { value: String(count), expiresAt: entry?.expiresAt ?? now() + ttlMs })
        return count
      }),
    ttl: (key) =>
      guard(() => {
        const expiresAt = live(key)?.expiresAt
        return expiresAt === undefined ? undefined : expiresAt - now()
      }),
    publish: (channel, message) => guard(() => void PubSub.publishUnsafe(topic(channel), message)),
    subscribe: (channel) =>
      Effect.flatMap(
        guard(() => topic(channel)),
        (pubsub) => Effect.map(PubSub.subscribe(pubsub), Stream.fromSubscription),
      ),
  })
  return { cache, entries, state }
}

export const T0 = Date.UTC(2026, 0, 31, 12, 0, 0)

export const admin: Person = { _tag: "Person", email: "admin@example.com", canWrite: () => true, canManage: true }
export const editor: Person = { _tag: "Person", email: "editor@example.com", canWrite: () => true, canManage: false }
export const viewer: Person = { _tag: "Person", email: "viewer@example.com", canWrite: () => false, canManage: false }
export const tokenFor = (platforms: ReadonlyArray<string> | null): Token => ({
  _tag: "Token",
  tokenId: "test-token",
  platforms,
})

export type Services = SchemaStore | Cache.Cache | Clock.Clock | Random.Random | Hasher.Hasher | RevokedTokens

/**
 * Shared storage (one store, one cache, one clock) and `instance()` to start a runtime over it, as one host
 * process would: each instance has its own revocation memory. `run` uses the first instance.
 */
export const makeEnvironment = (store?: SchemaStore["Service"]) => {
  const clock = Clock.makeManual(T0)
  const cache = makeTestCache(() => Effect.runSync(clock.clock.now))
  const shared = Effect.runSync(store === undefined ? MemorySchemaStore.make : Effect.succeed(store))
  const base = Layer.mergeAll(
    Layer.succeed(SchemaStore, shared),
    Layer.succeed(Cache.Cache, cache.cache),
    Layer.succeed(Clock.Clock, clock.clock),
    Random.layer,
    Hasher.layer,
  )
  const runtimes: Array<ManagedRuntime.ManagedRuntime<Services, never>> = []
  const instance = () => {
    const runtime = ManagedRuntime.make(Layer.provideMerge(RevokedTokens.layer, base))
    runtimes.push(runtime)
    return {
      run: <A, E>(effect: Effect.Effect<A, E, Services>): Promise<A> => runtime.runPromise(effect),
      flip: <A, E>(effect: Effect.Effect<A, E, Services>): Promise<E> => runtime.runPromise(Effect.flip(effect)),
    }
  }
  const first = instance()
  return {
    ...first,
    instance,
    store: shared,
    cache,
    clock,
    dispose: () => Promise.all(runtimes.map((runtime) => runtime.dispose())),
  }
}
