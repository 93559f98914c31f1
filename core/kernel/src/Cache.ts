/**
 * The Cache port: a small key-value store with expiry, atomic counters and publish/subscribe. It backs
 * token-check and resolution caching, rate limits shared by every instance, and cross-instance invalidation.
 *
 * Rules every adapter MUST keep (each is checked by the contract suite in `test/contract`):
 * - `get` after `set` returns the value until its TTL passes, then `undefined`; `delete` removes at once.
 * - `getMany` answers what `get` would for each key, in the order asked, in one round trip to the store.
 * - `increment` is atomic: N concurrent increments of one key end at N. The first increment of a key starts
 *   its window: the key expires `ttlMs` after it, whatever later increments do (a fixed window).
 * - `subscribe` has succeeded only once the subscription is active: a message published after that is
 *   delivered to the stream, in order, until the scope closes.
 * - When the backing store cannot be reached every call fails with `StoreUnavailable` quickly (well under a
 *   second), never hangs, and the adapter recovers by itself once the store is back.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { cacheLookups } from "./Metrics.js"
import type { StoreUnavailable } from "./StoreUnavailable.js"

export class Cache extends Context.Service<
  Cache,
  {
    readonly get: (key: string) => Effect.Effect<string | undefined, StoreUnavailable>
    /** `get` of several keys at once, in their order: what a request needs fresh is read in one round trip. */
    readonly getMany: (
      keys: ReadonlyArray<string>,
    ) => Effect.Effect<ReadonlyArray<string | undefined>, StoreUnavailable>
    /** Stores `value`; with `ttlMs` it expires after that many milliseconds. */
    readonly set: (key: string, value: string, ttlMs?: number) => Effect.Effect<void, StoreUnavailable>
    readonly delete: (key: string) => Effect.Effect<void, StoreUnavailable>
    /** Adds one and returns the new count; the first increment starts a window of `ttlMs`. */
    readonly increment: (key: string, ttlMs: number) => Effect.Effect<number, StoreUnavailable>
    /** Milliseconds until `key` expires; `undefined` when it is absent or has no expiry. */
    readonly ttl: (key: string) => Effect.Effect<number | undefined, StoreUnavailable>
    readonly publish: (channel: string, message: string) => Effect.Effect<void, StoreUnavailable>
    /** Active once it succeeds; the stream yields every message published afterwards until the scope closes. */
    readonly subscribe: (channel: string) => Effect.Effect<Stream.Stream<string>, StoreUnavailable, Scope.Scope>
  }
>()("@coffer/kernel/Cache") {}

/**
 * The same cache, with every read counted as a hit, a miss or an outage (`Metrics.cacheLookups`): each key of a
 * `get` or a `getMany` (the token, API-key and session checks read through `getMany`), and one outage per call that
 * could not reach the store. A host wraps whichever adapter it chose, so that every adapter is measured the same way.
 */
export const withMetrics = (cache: Cache["Service"]): Cache["Service"] => ({
  ...cache,
  get: (key) =>
    cache.get(key).pipe(
      Effect.tap((value) => Metric.update(cacheLookups[value === undefined ? "miss" : "hit"], 1)),
      Effect.tapError(() => Metric.update(cacheLookups.outage, 1)),
    ),
  // On the hottest path (every token-checked read): the counters are updated directly, as `Metrics.countCheck` does.
  getMany: (keys) =>
    Effect.contextWith((context: Context.Context<never>) =>
      Effect.flatMap(Effect.exit(cache.getMany(keys)), (exit) => {
        if (Exit.isSuccess(exit)) {
          let hits = 0
          for (const value of exit.value) if (value !== undefined) hits++
          if (hits > 0) cacheLookups.hit.updateUnsafe(hits, context)
          if (exit.value.length > hits) cacheLookups.miss.updateUnsafe(exit.value.length - hits, context)
        } else {
          cacheLookups.outage.updateUnsafe(1, context)
        }
        return exit
      }),
    ),
})

/** `withMetrics` over a layer of the port. */
export const layerWithMetrics = <E, R>(layer: Layer.Layer<Cache, E, R>): Layer.Layer<Cache, E, R> =>
  Layer.effect(Cache, Effect.map(Cache, withMetrics)).pipe(Layer.provide(layer))

/**
 * Hands every message on `channel` to `handle` for as long as the calling scope lasts, in a fiber of its own: how
 * an instance hears what other instances announce (revocations, renewed schema generations). A subscription that
 * cannot be made (the cache is down) is tried again every second in the background, so starting never fails.
 */
export const listen = <R>(
  cache: Cache["Service"],
  channel: string,
  handle: (message: string) => Effect.Effect<void, never, R>,
): Effect.Effect<void, never, R | Scope.Scope> =>
  Effect.scoped(Effect.flatMap(cache.subscribe(channel), (messages) => Stream.runForEach(messages, handle))).pipe(
    Effect.retry(Schedule.spaced("1 second")),
    Effect.forkScoped,
    Effect.asVoid,
  )
