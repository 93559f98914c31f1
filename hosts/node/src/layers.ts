/**
 * Choosing adapters from settings: SQLite or Postgres, the in-process cache or Redis, and the cipher under the
 * configured master keys. This is the only place that knows which adapter serves which port.
 */
import { NodeHasher, XChaCha20Poly1305 } from "@coffer/adapter-crypto"
import { MemoryCache } from "@coffer/adapter-memory"
import { OidcIdentity } from "@coffer/adapter-oidc"
import { PgPubSub, Postgres } from "@coffer/adapter-postgres"
import { RedisCache } from "@coffer/adapter-redis"
import { SqlDatabase, SqlKeyCanary, SqlSessions } from "@coffer/adapter-sql"
import { Sqlite } from "@coffer/adapter-sqlite"
import {
  Cache,
  type Cipher,
  Clock,
  DecodedCredentialsMax,
  type Hasher,
  type Identity,
  MasterKeyCheck,
  Random,
  Readiness,
  Sessions,
  type StoreUnavailable,
} from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type { HostSettings } from "./config/hostSettings.js"
import type * as Settings from "./config/Settings.js"

/** Reads the database settings alone, so that `coffer migrate` builds it without a master key. */
export const databaseLayer = (settings: Settings.Settings): Layer.Layer<SqlDatabase.SqlDatabase, StoreUnavailable> =>
  settings.database._tag === "Sqlite"
    ? Sqlite.layer({
        filename: settings.database.filename,
        statementCacheMax: settings.sqliteStatementCache,
        walAutocheckpointPages: settings.sqliteWalAutocheckpoint,
        synchronous: settings.sqliteSynchronous,
        busyTimeoutMs: settings.sqliteBusyTimeoutMs,
      })
    : Postgres.layer({ url: settings.database.url, max: settings.databasePoolMax })

/**
 * Redis when set; else the in-process cache, whose invalidations travel over Postgres `LISTEN/NOTIFY` when the
 * database is Postgres (several instances, no Redis: revocations and saves reach every one as soon as Postgres
 * delivers the notification). Reads are counted as hits, misses and outages (`/metrics`).
 */
export const cacheLayer = (settings: Settings.Settings): Layer.Layer<Cache.Cache, StoreUnavailable> => {
  if (settings.redisUrl !== undefined) {
    return Cache.layerWithMetrics(RedisCache.layer({ url: settings.redisUrl, prefix: settings.redisPrefix }))
  }
  const limits = { maxEntries: settings.cacheMaxEntries, maxBytes: settings.cacheMaxBytes }
  return Cache.layerWithMetrics(
    settings.database._tag === "Postgres"
      ? PgPubSub.layer(settings.database.url, MemoryCache.makeWith(limits))
      : MemoryCache.layerWith(limits),
  )
}

export const cipherLayer = (settings: HostSettings): Layer.Layer<Cipher.Cipher, Cipher.CipherError> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const masterKey = yield* XChaCha20Poly1305.parseMasterKey(Redacted.value(settings.masterKey))
      const previousKeys = yield* Effect.forEach(settings.previousMasterKeys, (key) =>
        XChaCha20Poly1305.parseMasterKey(Redacted.value(key)),
      )
      const dataKeyMemory = { max: settings.dataKeysMax, ttlMs: settings.dataKeyTtlSeconds * 1000 }
      return XChaCha20Poly1305.layer({ masterKey, previousKeys, dataKeyMemory })
    }),
  )

/**
 * The identity provider of `OIDC_*`, or nothing: the OIDC routes look the service up and answer 404 without it.
 * Building it fetches nothing (discovery is lazy), so a provider that is down never stops the start.
 */
export const identityLayer = (settings: HostSettings): Layer.Layer<never, Identity.IdentityError> =>
  settings.oidc === undefined ? Layer.empty : OidcIdentity.layer(settings.oidc)

/**
 * Whether session lookups go through the cache: only where every process that ends sessions reaches the cache the
 * services read, so that an ended session is refused at once everywhere. With Redis they share it; on Postgres
 * without Redis the announcements travel as notifications, from `coffer accounts unlink` too. On SQLite with the
 * in-process cache an operator's command could not tell a running server, so lookups stay store reads (local).
 */
export const sessionsCached = (settings: Settings.Settings): boolean =>
  settings.redisUrl !== undefined || settings.database._tag === "Postgres"

type SessionsNeeds = SqlDatabase.SqlDatabase | Cache.Cache | Clock.Clock | Random.Random | Hasher.Hasher

/** A service's sessions on the configured database, looked up through the cache where `sessionsCached` says. */
export const sessionsOnDatabase = (
  settings: Settings.Settings,
  service: SqlSessions.Service,
): Layer.Layer<Sessions.Sessions, never, SessionsNeeds> =>
  sessionsCached(settings) ? SqlSessions.layerCached({ service }) : SqlSessions.layer({ service })

/** The same for a serving instance, with the listener that cached sessions need beside them. */
export const sessionsLayer = (
  settings: HostSettings,
  service: SqlSessions.Service,
): Layer.Layer<Sessions.Sessions, never, SessionsNeeds> =>
  Layer.merge(
    sessionsOnDatabase(settings, service),
    sessionsCached(settings) ? Sessions.listener(service) : Layer.empty,
  )

/** SHA-256 through `node:crypto`, synchronous (Bun implements it too): a token check hashes on every request. */
export const platformLayer: Layer.Layer<Clock.Clock | Random.Random | Hasher.Hasher> = Layer.mergeAll(
  Clock.layer,
  Random.layer,
  NodeHasher.layer,
)

/**
 * Ready when the database answers and the master key opens what it holds (`MasterKeyCheck.verify`, a read and
 * an unwrap: no side effects, as the port asks).
 */
const readinessLayer: Layer.Layer<
  Readiness.Readiness,
  never,
  SqlDatabase.SqlDatabase | MasterKeyCheck.KeyCanary | Cipher.Cipher
> = Layer.effect(
  Readiness.Readiness,
  Effect.gen(function* () {
    const database = yield* Readiness.Readiness
    const context = yield* Effect.context<MasterKeyCheck.KeyCanary | Cipher.Cipher>()
    return { check: Effect.andThen(database.check, Effect.provide(MasterKeyCheck.verify, context)) }
  }),
).pipe(Layer.provide(SqlDatabase.layerReadiness))

/** What both services stand on: storage, cache, cipher, and the platform ports. */
export type Infrastructure =
  | SqlDatabase.SqlDatabase
  | MasterKeyCheck.KeyCanary
  | Readiness.Readiness
  | Cache.Cache
  | Cipher.Cipher
  | Clock.Clock
  | Random.Random
  | Hasher.Hasher

/**
 * Built once per process: both services' runtimes share it through one memo map, so there is one pool,
 * one Redis connection and one cipher however many services run.
 */
export const infrastructureLayer = (
  settings: HostSettings,
): Layer.Layer<Infrastructure, StoreUnavailable | Cipher.CipherError | Identity.IdentityError> =>
  readinessLayer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        SqlKeyCanary.layer,
        platformLayer,
        cacheLayer(settings),
        cipherLayer(settings),
        identityLayer(settings),
        // `COFFER_DECODED_CREDENTIALS_MAX`: cached credential checks each process keeps decoded, per kind.
        Layer.succeed(DecodedCredentialsMax)(settings.decodedCredentialsMax),
      ),
    ),
    Layer.provideMerge(databaseLayer(settings)),
  )
