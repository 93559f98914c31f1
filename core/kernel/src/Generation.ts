/**
 * A generation: one random value in the Cache port that cached answers are keyed or stamped with, so that a write
 * abandons all of them at once, on every instance, by replacing it. Both services cache this way: the schema
 * answers (`@coffer/schemas` `schemaCache.ts`), the API-key checks (`@coffer/secrets` `apiKeyChecks.ts`) and the
 * session lookups (`Sessions.ts`); the last two through `makeLookup`.
 *
 * Why a generation rather than deleting entries: a reader that fetched the store just before a write committed
 * could put its old answer back after the writer deleted the key; under a generation that answer lands in an
 * abandoned key space, or carries a stamp that no longer matches. The rules, which the users above follow:
 * - a reader reads the generation before it reads the store, and caches what it found under that value;
 * - a writer renews twice: before its change (`renew`: a cache that cannot be reached refuses the write, so
 *   nothing changes behind a cache that cannot be told), and after the commit (`renewAfterCommit`), which abandons
 *   whatever a reader cached from the store while the write was in flight, then announces it on the generation's
 *   channel;
 * - every instance that caches in process runs `listener`, which forgets its own value when a write anywhere is
 *   announced (instances sharing Redis share the value already).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { Cache, listen } from "./Cache.js"
import { DecodedCredentialsMax, decodeOnce } from "./decodeOnce.js"
import { Random } from "./Random.js"
import type { StoreUnavailable } from "./StoreUnavailable.js"

export interface Generation {
  /** The cache key holding the current value. */
  readonly key: string
  /** Where a committed write announces that it renewed the value. */
  readonly channel: string
  /** What it abandons, for the log line of a renewal that failed after a commit ("schema answers"). */
  readonly abandons: string
}

/** The generation named `name`: its key and its channel are both `name`. */
export const make = (name: string, abandons: string): Generation => ({ key: name, channel: name, abandons })

/**
 * The current value, starting one when there is none; `undefined` when the cache cannot be reached (the caller then
 * asks the store and caches nothing). Starting is safe when two readers race: each value is new, so nothing is
 * cached under either yet.
 */
export const current = (generation: Generation): Effect.Effect<string | undefined, never, Cache | Random> =>
  Effect.gen(function* () {
    const cache = yield* Cache
    const existing = yield* cache.get(generation.key)
    if (existing !== undefined) return existing
    const fresh = yield* Random.use((random) => random.id)
    yield* cache.set(generation.key, fresh)
    return fresh
  }).pipe(Effect.orElseSucceed(() => undefined))

/** Replaces the value, abandoning every answer cached under the old one; fails when the cache cannot be reached. */
export const renew = (generation: Generation): Effect.Effect<void, StoreUnavailable, Cache | Random> =>
  Effect.gen(function* () {
    const fresh = yield* Random.use((random) => random.id)
    yield* Cache.use((cache) => cache.set(generation.key, fresh))
  })

/**
 * `renew` after a commit, then the announcement: the write has happened, so a cache that cannot be reached is
 * retried briefly and then reported, never turned into a failure of the write.
 */
export const renewAfterCommit = (generation: Generation): Effect.Effect<void, never, Cache | Random> =>
  renew(generation).pipe(
    Effect.retry({ schedule: Schedule.exponential("50 millis"), times: 3 }),
    Effect.andThen(Cache.use((cache) => cache.publish(generation.channel, "renewed"))),
    Effect.catch((error) =>
      Effect.logError(
        `Could not renew or announce the generation of the ${generation.abandons} after a write; cached answers may lag`,
        error,
      ),
    ),
  )

/**
 * `change` between the two renewals: refused before anything changes when the cache cannot be reached, and every
 * answer cached meanwhile abandoned once it has committed (when it fails, nothing changed and nothing is renewed).
 */
export const renewingAround =
  (generation: Generation) =>
  <A, E, R>(change: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnavailable, R | Cache | Random> =>
    renew(generation).pipe(Effect.andThen(change), Effect.tap(renewAfterCommit(generation)))

/**
 * Forgets this instance's value whenever a write anywhere announces a renewal, so that its next read starts a fresh
 * one and asks the store. Forgetting rather than taking an announced value: a late announcement can never bring
 * back a value under which older answers were cached. Building never fails (`Cache.listen`).
 */
export const listener = (generation: Generation): Layer.Layer<never, never, Cache> =>
  Layer.effectDiscard(
    Effect.flatMap(Effect.service(Cache), (cache) =>
      listen(cache, generation.channel, () => cache.delete(generation.key).pipe(Effect.ignore)),
    ),
  )

export interface LookupOptions<S extends Schema.Codec<unknown, unknown>> {
  /** The cache key of the entry for `id` (a credential's hash). */
  readonly entryKey: (id: string) => string
  /** How long an entry lives; a renewed generation abandons it sooner. */
  readonly ttlMs: number
  /** What an entry holds; never anything secret. Entries are kept decoded up to `DecodedCredentialsMax`. */
  readonly value: S
}

/**
 * A lookup through the cache under `generation`, for answers a store gives by id (a credential's hash): an entry is
 * stamped with the generation read before the store was asked, and believed only while that stamp is current. The
 * store stays the truth: what it does not find is never cached (a guesser fills nothing), and when the cache cannot
 * be reached the store answers and nothing is cached.
 */
export const makeLookup = <S extends Schema.Codec<unknown, unknown>>(
  generation: Generation,
  options: LookupOptions<S>,
) => {
  const ValueJson = Schema.fromJsonString(options.value)
  const encode = Schema.encodeSync(ValueJson)
  const decodeValue = decodeOnce(Schema.decodeUnknownOption(ValueJson))
  return <E, R>(
    id: string,
    load: Effect.Effect<S["Type"] | undefined, E, R>,
  ): Effect.Effect<S["Type"] | undefined, E, R | Cache | Random> =>
    Effect.gen(function* () {
      const cache = yield* Cache
      const key = options.entryKey(id)
      const [cached, latest] = yield* cache
        .getMany([key, generation.key])
        .pipe(Effect.orElseSucceed((): ReadonlyArray<string | undefined> => []))
      // An entry is `<generation> <value as JSON>`: believed only under the generation it was stamped with.
      if (cached !== undefined && latest !== undefined && cached.startsWith(`${latest} `)) {
        const value = decodeValue(cached.slice(latest.length + 1), yield* DecodedCredentialsMax)
        if (value !== undefined) return value
      }
      // Read before the store: a change that commits after this read renews the generation, abandoning the entry.
      const stamp = latest ?? (yield* current(generation))
      const found = yield* load
      if (found !== undefined && stamp !== undefined) {
        yield* cache.set(key, `${stamp} ${encode(found)}`, options.ttlMs).pipe(Effect.ignore)
      }
      return found
    })
}
