/**
 * API tokens (seed 000 §2 and §5): read-only credentials for services and CI, `cfs_` followed by 256 random bits
 * (kernel `Random.token`), returned once at creation; only the SHA-256 is stored and looked up.
 *
 * Checking a token goes through the Cache port on every request, and fails closed: when the cache (Redis) cannot
 * be reached the check fails with `StoreUnavailable` (503), never falls back to "allowed", and answers again by
 * itself once the cache is back. A valid token is cached for `TOKEN_CHECK_TTL_MS`, so the database is asked about
 * a busy token about once a minute whatever the number of instances. The check is one round trip to the cache: the
 * token's entry (whose presence is the revocation signal) and the schema cache's generation are read together
 * (`getMany`), the generation riding on the `Token` actor to the read it authorises; the entry's text is decoded
 * once per process and remembered, so a busy token costs a hash, one cache read and a map lookup.
 *
 * Revocation is immediate everywhere: the revoking instance deletes the cache entry (inside the transaction, so a
 * cache that cannot be reached refuses the revocation instead of leaving a live entry behind), then publishes the
 * token's hash on `INVALIDATION_CHANNEL`. Every instance subscribes (`RevokedTokens.layer`), deletes the entry
 * again and remembers the hash for one cache lifetime, and the check refuses a remembered hash even when an
 * entry is found. That closes the race of a check that read the database just before the revocation committed
 * and cached its answer just after the delete.
 *
 * A token's platforms narrow when a platform it names is deleted (`SchemaStore` rule 6). Its cached grant goes the
 * way a revoked token's entry goes (deleted inside the transaction, then announced on `NARROWED_CHANNEL`), and
 * every instance that hears of it reads that token's platforms from the store, not the cache, for two cache
 * lifetimes: so a grant cached from a read made just before the deletion committed can never let the token reach a
 * platform created later under the deleted one's name. Deletions are rare; those tokens cost a store read each for
 * two minutes after one.
 *
 * `lastUsedAt` is written at most once a minute per token, by whichever instance first counts a use in that
 * minute (an atomic `increment` on the cache), never on every request. Each instance counts a token's use with the
 * cache at most once a minute too (`RevokedTokens.countsUse`), so the counter costs no round trip per request;
 * with several instances `lastUsedAt` may lag by up to two minutes.
 */
import {
  Cache,
  Clock,
  DecodedCredentialsMax,
  decodeOnce,
  Hasher,
  Metrics,
  makeUseMarks,
  type StoreUnavailable,
  spanned,
  Unauthorized,
} from "@coffer/kernel"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { Token } from "../access.js"
import { SchemaStore } from "../SchemaStore.js"
import { GENERATION_KEY } from "../schemaCache.js"

export const TOKEN_PREFIX = "cfs_"
/** `cfs_` and 43 base64url characters; anything much longer is not worth hashing. */
const MAX_TOKEN_LENGTH = 128

/** How long a valid token check is cached, and how long a revoked hash is remembered locally. */
export const TOKEN_CHECK_TTL_MS = 60_000
/** `lastUsedAt` is recorded at most once per this period and token. */
export const LAST_USED_PERIOD_MS = 60_000
/** Where revocations are announced to every instance. */
export const INVALIDATION_CHANNEL = "schemas:tokens:revoked"
/** Where tokens whose platforms narrowed are announced to every instance. */
export const NARROWED_CHANNEL = "schemas:tokens:narrowed"
/** How long an instance reads a narrowed token's platforms from the store: past any grant cached before. */
const NARROWED_MS = 2 * TOKEN_CHECK_TTL_MS

export const tokenCacheKey = (hash: string) => `schemas:token:${hash}`
const lastUsedKey = (id: string) => `schemas:token-used:${id}`

/** What the cache keeps for a valid token: enough to authorise, nothing secret. */
const Grant = Schema.Struct({ id: Schema.String, platforms: Schema.NullOr(Schema.Array(Schema.String)) })
const GrantJson = Schema.fromJsonString(Grant)
const encodeGrant = Schema.encodeSync(GrantJson)

/** The grant a cached text holds, decoded once per text (up to `DecodedCredentialsMax` texts). */
const grantOf = decodeOnce(Schema.decodeUnknownOption(GrantJson))

/** The short hint shown in token lists: the prefix and the last four characters. */
export const hintOf = (token: string) => `${TOKEN_PREFIX}…${token.slice(-4)}`

/**
 * What this instance's memory says of a token the cache vouches for: `revoked` (a revocation was announced here
 * within one cache lifetime), `first-use` (its first use this instance sees in `LAST_USED_PERIOD_MS`, the only one
 * counted with the cache) or `seen`; either of the last two is `narrowed-` when its platforms narrowed lately (its
 * grant is then read from the store), a use counted all the same.
 */
export type Admission = "revoked" | "narrowed-first-use" | "narrowed-seen" | "first-use" | "seen"

/**
 * What this instance remembers of token checks: the hashes it knows to be revoked, each for one cache lifetime
 * (after which no entry survives), those whose platforms narrowed, for `NARROWED_MS`, and the tokens whose use it
 * has counted lately.
 */
export class RevokedTokens extends Context.Service<
  RevokedTokens,
  {
    readonly add: (hash: string) => Effect.Effect<void>
    readonly narrow: (hash: string) => Effect.Effect<void>
    /** The admission of token `id` (hash `hash`), reading the clock once: a use is marked counted here. */
    readonly admit: (hash: string, id: string) => Effect.Effect<Admission>
  }
>()("@coffer/schemas/RevokedTokens") {
  /**
   * The set, fed by a subscription to `INVALIDATION_CHANNEL` that lives as long as the layer. A subscription that
   * cannot be made (the cache is down) is retried every second in the background; building never fails.
   */
  static readonly layer: Layer.Layer<RevokedTokens, never, Cache.Cache | Clock.Clock> = Layer.effect(
    RevokedTokens,
    Effect.gen(function* () {
      const cache = yield* Cache.Cache
      const clock = yield* Clock.Clock
      const revoked = new Map<string, number>()
      const narrowed = new Map<string, number>()
      const firstUseAt = makeUseMarks(LAST_USED_PERIOD_MS)
      const marked = (marks: Map<string, number>, hash: string, now: number) => {
        if (marks.size === 0) return false
        const expiry = marks.get(hash)
        if (expiry !== undefined && expiry <= now) marks.delete(hash)
        return expiry !== undefined && expiry > now
      }
      const mark = (marks: Map<string, number>, lifetime: number) => (hash: string) =>
        Effect.map(clock.now, (now) => {
          for (const [known, expiry] of marks) if (expiry <= now) marks.delete(known)
          marks.set(hash, now + lifetime)
        })
      const add = mark(revoked, TOKEN_CHECK_TTL_MS)
      const narrow = mark(narrowed, NARROWED_MS)
      const admit = (hash: string, id: string) =>
        Effect.map(clock.now, (now): Admission => {
          if (marked(revoked, hash, now)) return "revoked"
          const use = firstUseAt(id, now) ? "first-use" : "seen"
          return marked(narrowed, hash, now) ? `narrowed-${use}` : use
        })
      const forgetting = (remember: (hash: string) => Effect.Effect<void>) => (hash: string) =>
        Effect.andThen(remember(hash), cache.delete(tokenCacheKey(hash)).pipe(Effect.ignore))
      yield* Cache.listen(cache, INVALIDATION_CHANNEL, forgetting(add))
      yield* Cache.listen(cache, NARROWED_CHANNEL, forgetting(narrow))
      return RevokedTokens.of({ add, narrow, admit })
    }),
  )
}

const invalidToken = () => new Unauthorized({ message: "Invalid or revoked API token" })

/**
 * The actor a bearer token stands for, or 401 when it is unknown or revoked, or 503 when the check cannot be made.
 *
 * It runs on every token-checked read: its span is made only when tracing is on (`spanned`), since `Effect.fn`'s
 * span and call-site stack cost more than the check itself (issue 10). The count and the span wrap it in a plain
 * function: as `Effect.fnUntraced`'s pipeables they are applied through a spread of `arguments` on every call.
 */
export const checkToken = (
  token: string,
): Effect.Effect<
  Token,
  Unauthorized | StoreUnavailable,
  SchemaStore | Cache.Cache | Hasher.Hasher | Clock.Clock | RevokedTokens
> => tracedCheck(countedCheck(check(token)))

const countedCheck = Metrics.countCheck("token")
const tracedCheck = spanned("Schemas.checkToken")

type CheckServices = SchemaStore | Cache.Cache | Hasher.Hasher | Clock.Clock | RevokedTokens

/**
 * The check itself, in as few steps as it can be: the services are read together, and the instance's memory of
 * the token is asked once (`admit`), since every step of a generator costs about as much as the hash (issue 10).
 */
const check = Effect.fnUntraced(function* (
  token: string,
): Effect.fn.Return<Token, Unauthorized | StoreUnavailable, CheckServices> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > MAX_TOKEN_LENGTH) return yield* invalidToken()
  const services = yield* Effect.context<CheckServices>()
  const cache = Context.get(services, Cache.Cache)
  const hash = yield* Context.get(services, Hasher.Hasher).sha256Hex(token)
  const key = tokenCacheKey(hash)
  const [cached, generation] = yield* cache.getMany([key, GENERATION_KEY])
  let grant = cached === undefined ? undefined : grantOf(cached, Context.get(services, DecodedCredentialsMax))
  if (grant === undefined) {
    const stored = yield* Context.get(services, SchemaStore).findTokenByHash(hash)
    if (stored === undefined) return yield* invalidToken()
    grant = { id: stored.id, platforms: stored.platforms }
    yield* cache.set(key, encodeGrant(grant), TOKEN_CHECK_TTL_MS)
  }
  const { id } = grant
  let { platforms } = grant
  const admission = yield* Context.get(services, RevokedTokens).admit(hash, id)
  if (admission === "revoked") return yield* invalidToken()
  if (admission === "narrowed-first-use" || admission === "narrowed-seen") {
    const stored = yield* Context.get(services, SchemaStore).findTokenByHash(hash)
    if (stored === undefined) return yield* invalidToken()
    platforms = stored.platforms
  }
  if (
    (admission === "first-use" || admission === "narrowed-first-use") &&
    (yield* cache.increment(lastUsedKey(id), LAST_USED_PERIOD_MS)) === 1
  ) {
    const now = yield* Context.get(services, Clock.Clock).now
    yield* Context.get(services, SchemaStore).touchToken(id, now)
  }
  return generation === undefined
    ? { _tag: "Token", tokenId: id, platforms }
    : { _tag: "Token", tokenId: id, platforms, generation }
})

/**
 * Inside the transaction that narrowed `tokens`' platforms: their cached grants are deleted, so that a cache that
 * cannot be told refuses the change, as it refuses a revocation.
 */
export const dropGrants = (
  tokens: ReadonlyArray<{ readonly hash: string }>,
): Effect.Effect<void, StoreUnavailable, Cache.Cache> =>
  Cache.Cache.use((cache) =>
    Effect.forEach(tokens, (token) => cache.delete(tokenCacheKey(token.hash)), { discard: true }),
  )

/** After that commit: this instance and every other read those tokens' platforms from the store for a while. */
export const announceNarrowed = (
  tokens: ReadonlyArray<{ readonly hash: string }>,
): Effect.Effect<void, never, Cache.Cache | RevokedTokens> =>
  Effect.gen(function* () {
    const cache = yield* Cache.Cache
    const memory = yield* RevokedTokens
    for (const { hash } of tokens) {
      yield* memory.narrow(hash)
      yield* cache.delete(tokenCacheKey(hash)).pipe(Effect.ignore)
      yield* cache
        .publish(NARROWED_CHANNEL, hash)
        .pipe(Effect.catch((error) => Effect.logError("Could not announce a token's narrowed platforms", error)))
    }
  })
