/**
 * The host settings: every environment variable of the host contract table (the README's configuration table),
 * read and checked in one pass. This is the host's job: the apps of `@coffer/http` take only the few fields each
 * reads (`appSettings.ts`). `parse` reports every bad setting at once, one line each, naming the variable and what is wrong, so
 * that a host can stop with a clear message; lines never contain the value of a secret (database and Redis
 * URLs, master keys, the OIDC client secret), and secrets are kept as `Redacted` so they cannot leak into logs.
 *
 * Conventions: surrounding whitespace is ignored and an empty value counts as unset (as `FOO=` in a compose
 * file means "not configured"). Defaults that depend on the bound ports (the public origins) are the host's
 * job, because a port of `0` is only known after binding.
 *
 * The roles settings (seed 000 §5) are "read on every request", so `parseRoles` is exported on its own for the
 * HTTP layer to re-read them cheaply from a live environment.
 */
import { MemoryCache } from "@coffer/adapter-memory"
import { Sqlite } from "@coffer/adapter-sqlite"
import { Cipher, DECODED_CREDENTIALS_MAX } from "@coffer/kernel"
import { SchemaCache } from "@coffer/schemas"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as HeapGrowth from "../heapGrowth.js"
import {
  allowInsecureHttp,
  database,
  environment,
  host,
  httpUrl,
  MASTER_KEY_BYTES,
  makeReader,
  masterKey,
  nonNegativeInteger,
  oldGenerationGrowthPercent,
  origin,
  origins,
  platformEditors,
  port,
  positiveInteger,
  previousMasterKeys,
  proxies,
  type Reader,
  redisPrefix,
  redisUrl,
  sqliteSynchronous,
  text,
  youngGenerationMb,
} from "./checks.js"
import { refuseInsecureOrigins } from "./insecureOrigins.js"
import * as Operating from "./operatingSettings.js"

/** The environment as the host sees it (`process.env`, `Bun.env`, or a plain object in tests). */
export type Env = Readonly<Record<string, string | undefined>>

export const Port = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 65535 }))

export const Environment = Schema.Literals(["development", "production"])
export type Environment = typeof Environment.Type

/**
 * Where the data lives. `Sqlite` covers `sqlite:<file>` and `sqlite::memory:` (filename `:memory:`, which
 * every SQLite driver understands); `Postgres` keeps the whole URL redacted since it usually holds a password.
 */
export const Database = Schema.Union([
  Schema.TaggedStruct("Sqlite", { filename: Schema.NonEmptyString }),
  Schema.TaggedStruct("Postgres", { url: Schema.Redacted(Schema.String) }),
])
export type Database = typeof Database.Type

/** The identity provider; present only when both issuer and client id are set. */
export const Oidc = Schema.Struct({
  issuer: Schema.NonEmptyString,
  clientId: Schema.NonEmptyString,
  /** Absent for a public client (PKCE alone). */
  clientSecret: Schema.UndefinedOr(Schema.Redacted(Schema.String)),
  /** Display name for the sign-in button. */
  name: Schema.NonEmptyString,
})
export type Oidc = typeof Oidc.Type

/** Schemas roles (seed 000 §5): `@coffer/schemas`' `Permissions.Roles`, read from the environment. */
export const Roles = Schema.Struct({
  /** The sign-in token claim that lists the user's groups. */
  claim: Schema.NonEmptyString,
  /** When set, only its members (and admins) can change configuration. */
  editorGroup: Schema.UndefinedOr(Schema.NonEmptyString),
  /** When set, only its members can delete platforms or versions and manage API tokens. */
  adminGroup: Schema.UndefinedOr(Schema.NonEmptyString),
  /** Platform name to the groups allowed to write it (one of them is needed); unlisted platforms are unaffected. */
  platformEditors: Schema.ReadonlyMap(Schema.NonEmptyString, Schema.Array(Schema.NonEmptyString)),
})
export type Roles = typeof Roles.Type

export const Settings = Schema.Struct({
  /** `COFFER_HOST`: the bind address. */
  host: Schema.NonEmptyString,
  /** `COFFER_SCHEMAS_PORT`; `0` picks a free port. */
  schemasPort: Port,
  /** `COFFER_SECRETS_PORT`; `0` picks a free port. */
  secretsPort: Port,
  /** `COFFER_DATABASE_URL`. */
  database: Database,
  /** `COFFER_REDIS_URL`; unset means the in-process cache. */
  redisUrl: Schema.UndefinedOr(Schema.Redacted(Schema.String)),
  /** `COFFER_REDIS_PREFIX`: what every Redis key and channel starts with, so deployments can share one Redis. */
  redisPrefix: Schema.NonEmptyString,
  /** `COFFER_ENV`. */
  environment: Environment,
  /** `COFFER_MASTER_KEY`, base64 of 32 bytes; absent only in development, where the host generates one. */
  masterKey: Schema.UndefinedOr(Schema.Redacted(Schema.String)),
  /** `COFFER_MASTER_KEY_PREVIOUS`: keys still accepted for opening data keys during a rotation. */
  previousMasterKeys: Schema.Array(Schema.Redacted(Schema.String)),
  /** `COFFER_PUBLIC_ORIGIN` (secrets), normalised to `scheme://host[:port]`. */
  publicOrigin: Schema.UndefinedOr(Schema.String),
  /** `COFFER_SCHEMAS_PUBLIC_ORIGIN`, normalised like `publicOrigin`. */
  schemasPublicOrigin: Schema.UndefinedOr(Schema.String),
  /** `OIDC_ISSUER`, `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET`, `OIDC_NAME`; undefined means sign-in is off. */
  oidc: Schema.UndefinedOr(Oidc),
  /** `OIDC_ROLES_CLAIM`, `OIDC_EDITOR_GROUP`, `OIDC_ADMIN_GROUP`, `OIDC_PLATFORM_EDITORS`. */
  roles: Roles,
  /** `CORS_ORIGIN`: origins allowed to call the services from a browser, with credentials. */
  corsOrigins: Schema.Array(Schema.String),
  /** `COFFER_RATE_LIMIT`: attempts per client address per minute on limited paths; `0` turns limits off. */
  rateLimit: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  /** `COFFER_CACHE_MAX_ENTRIES`: entries the in-process cache holds at most (oldest out first). */
  cacheMaxEntries: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  /** `COFFER_CACHE_MAX_BYTES`: bytes of keys and values the in-process cache holds at most (oldest out first). */
  cacheMaxBytes: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  /** `COFFER_DATABASE_POOL_MAX`: connections the Postgres pool opens at most (unused on SQLite). */
  databasePoolMax: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  /** `COFFER_DECODED_SCHEMAS_MAX`: schema answers each process keeps decoded (`@coffer/schemas` SchemaCache). */
  decodedSchemasMax: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  /**
   * `COFFER_DECODED_CREDENTIALS_MAX`: cached credential checks (schema token grants, API-key checks, sessions) each
   * process keeps decoded, per kind (`@coffer/kernel` `DecodedCredentialsMax`).
   */
  decodedCredentialsMax: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  /** `COFFER_SQLITE_STATEMENT_CACHE`: compiled statements the SQLite connection keeps for reuse. */
  sqliteStatementCache: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  /** `COFFER_SQLITE_WAL_AUTOCHECKPOINT`: pages the SQLite write-ahead log grows to before it is checkpointed. */
  sqliteWalAutocheckpoint: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  /** `COFFER_SQLITE_SYNCHRONOUS`: when a SQLite commit waits for the disk. */
  sqliteSynchronous: Schema.Literals(["normal", "full"]),
  /** `COFFER_SQLITE_BUSY_TIMEOUT_MS`: how long a SQLite statement waits for another process's lock. */
  sqliteBusyTimeoutMs: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  /** `COFFER_DATA_KEYS_MAX`: unwrapped data keys each process keeps in memory at most (`@coffer/kernel` Cipher). */
  dataKeysMax: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  /** `COFFER_DATA_KEY_TTL_SECONDS`: how long each unwrapped data key is kept. */
  dataKeyTtlSeconds: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  /** `COFFER_TRUSTED_PROXIES`: addresses and CIDR ranges whose forwarding headers are believed (`@coffer/http`). */
  trustedProxies: Schema.Array(Schema.String),
  /** `COFFER_REQUEST_TIMEOUT_SECONDS`: how long a client has to send a whole request, headers and body (Node). */
  requestTimeoutSeconds: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  /** `COFFER_YOUNG_GENERATION_MB`: how far the `coffer` command on Node lets V8 grow its young generation (`0`: V8 decides). */
  youngGenerationMb: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  /** `COFFER_OLD_GENERATION_GROWTH_PERCENT`: how much V8's old generation grows between full collections (`0`: V8 decides). */
  oldGenerationGrowthPercent: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1000 })),
  ...Operating.fields,
})
export type Settings = typeof Settings.Type

export const DEFAULT_HOST = "127.0.0.1"
export const DEFAULT_SCHEMAS_PORT = 8787
export const DEFAULT_SECRETS_PORT = 8788
export const DEFAULT_DATABASE_URL = "sqlite:.coffer/coffer.db"
export const DEFAULT_REDIS_PREFIX = "coffer:"
export const DEFAULT_ROLES_CLAIM = "groups"
export const DEFAULT_OIDC_NAME = "OpenID Connect"
export const DEFAULT_RATE_LIMIT = 30
export const DEFAULT_CACHE_MAX_ENTRIES = MemoryCache.defaultLimits.maxEntries
export const DEFAULT_CACHE_MAX_BYTES = MemoryCache.defaultLimits.maxBytes
export const DEFAULT_DATABASE_POOL_MAX = 10
export const DEFAULT_DECODED_SCHEMAS_MAX = SchemaCache.DECODED_SCHEMAS_MAX
export const DEFAULT_DECODED_CREDENTIALS_MAX = DECODED_CREDENTIALS_MAX
export const DEFAULT_SQLITE_STATEMENT_CACHE = Sqlite.STATEMENT_CACHE_MAX
export const DEFAULT_SQLITE_WAL_AUTOCHECKPOINT = Sqlite.WAL_AUTOCHECKPOINT_PAGES
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = Sqlite.BUSY_TIMEOUT_MS
export const DEFAULT_DATA_KEYS_MAX = Cipher.DATA_KEYS_MAX
export const DEFAULT_DATA_KEY_TTL_SECONDS = Cipher.DATA_KEY_TTL_MS / 1000
/** Vault's `http_read_timeout`: a 1 MiB body, the most a request carries, needs 35 KB/s to arrive in time. */
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 30
export const DEFAULT_YOUNG_GENERATION_MB = HeapGrowth.DEFAULT_YOUNG_GENERATION_MB
export const DEFAULT_OLD_GENERATION_GROWTH_PERCENT = HeapGrowth.DEFAULT_OLD_GENERATION_GROWTH_PERCENT
const readRoles = (reader: Reader): Roles => ({
  claim: reader.read("OIDC_ROLES_CLAIM", text, DEFAULT_ROLES_CLAIM),
  editorGroup: reader.read<string | undefined>("OIDC_EDITOR_GROUP", text, undefined),
  adminGroup: reader.read<string | undefined>("OIDC_ADMIN_GROUP", text, undefined),
  platformEditors: reader.read("OIDC_PLATFORM_EDITORS", platformEditors, new Map()),
})

/** Issuer and client id go together; a secret or a name without them is a mistake worth reporting. */
const readOidc = (reader: Reader): Oidc | undefined => {
  const issuer = reader.read<string | undefined>("OIDC_ISSUER", httpUrl, undefined)
  const clientId = reader.read<string | undefined>("OIDC_CLIENT_ID", text, undefined)
  const clientSecret = reader.raw("OIDC_CLIENT_SECRET")
  const name = reader.raw("OIDC_NAME")
  const issuerSet = reader.raw("OIDC_ISSUER") !== undefined
  const clientIdSet = clientId !== undefined
  if (issuerSet && !clientIdSet) reader.report("OIDC_CLIENT_ID", "required when OIDC_ISSUER is set")
  if (clientIdSet && !issuerSet) reader.report("OIDC_ISSUER", "required when OIDC_CLIENT_ID is set")
  if (!issuerSet && !clientIdSet) {
    if (clientSecret !== undefined) {
      reader.report("OIDC_CLIENT_SECRET", "set, but OIDC_ISSUER and OIDC_CLIENT_ID are not")
    }
    if (name !== undefined) reader.report("OIDC_NAME", "set, but OIDC_ISSUER and OIDC_CLIENT_ID are not")
  }
  if (issuer === undefined || clientId === undefined) return undefined
  return {
    issuer,
    clientId,
    clientSecret: clientSecret === undefined ? undefined : Redacted.make(clientSecret, { label: "OIDC_CLIENT_SECRET" }),
    name: name ?? DEFAULT_OIDC_NAME,
  }
}

/** The roles settings alone, for re-reading on every request (seed 000 §5 rule 1). */
export const parseRoles = (env: Env): Result.Result<Roles, ReadonlyArray<string>> => {
  const reader = makeReader(env)
  const roles = readRoles(reader)
  return reader.errors.length === 0 ? Result.succeed(roles) : Result.fail(reader.errors)
}

/**
 * Every setting of the host contract table, or one line per bad setting. `masterKeyRequired: false` is for a
 * command that never reads the key (`coffer migrate`): a key given is still checked, a missing one is no error.
 */
export const parse = (
  env: Env,
  { masterKeyRequired = true }: { readonly masterKeyRequired?: boolean } = {},
): Result.Result<Settings, ReadonlyArray<string>> => {
  const reader = makeReader(env)
  const { read } = reader
  const host_ = read("COFFER_HOST", host, DEFAULT_HOST)
  const schemasPort = read("COFFER_SCHEMAS_PORT", port, DEFAULT_SCHEMAS_PORT)
  const secretsPort = read("COFFER_SECRETS_PORT", port, DEFAULT_SECRETS_PORT)
  const database_ = read("COFFER_DATABASE_URL", database, {
    _tag: "Sqlite",
    filename: DEFAULT_DATABASE_URL.slice("sqlite:".length),
  })
  const redisUrl_ = read<Redacted.Redacted<string> | undefined>("COFFER_REDIS_URL", redisUrl, undefined)
  const redisPrefix_ = read("COFFER_REDIS_PREFIX", redisPrefix, DEFAULT_REDIS_PREFIX)
  // A bad COFFER_ENV is reported; the other checks then assume production, the stricter mode.
  const environment_ = read("COFFER_ENV", environment, "production")
  const development = environment_ === "development"
  const masterKey_ = read<Redacted.Redacted<string> | undefined>("COFFER_MASTER_KEY", masterKey, undefined)
  if (masterKeyRequired && !development && reader.raw("COFFER_MASTER_KEY") === undefined) {
    reader.report("COFFER_MASTER_KEY", `required in production (base64 of ${MASTER_KEY_BYTES} bytes)`)
  }
  const previousMasterKeys_ = read("COFFER_MASTER_KEY_PREVIOUS", previousMasterKeys, [])
  const publicOrigin = read<string | undefined>("COFFER_PUBLIC_ORIGIN", origin, undefined)
  const schemasPublicOrigin = read<string | undefined>("COFFER_SCHEMAS_PUBLIC_ORIGIN", origin, undefined)
  const allowInsecure = read("COFFER_ALLOW_INSECURE_HTTP", allowInsecureHttp, false)
  if (!development && !allowInsecure) {
    refuseInsecureOrigins(reader, host_, {
      COFFER_PUBLIC_ORIGIN: publicOrigin,
      COFFER_SCHEMAS_PUBLIC_ORIGIN: schemasPublicOrigin,
    })
  }
  const oidc = readOidc(reader)
  const roles = readRoles(reader)
  const corsOrigins = read("CORS_ORIGIN", origins, [])
  const rateLimit = read("COFFER_RATE_LIMIT", nonNegativeInteger, development ? 0 : DEFAULT_RATE_LIMIT)
  const cacheMaxEntries = read("COFFER_CACHE_MAX_ENTRIES", positiveInteger, DEFAULT_CACHE_MAX_ENTRIES)
  const cacheMaxBytes = read("COFFER_CACHE_MAX_BYTES", positiveInteger, DEFAULT_CACHE_MAX_BYTES)
  const databasePoolMax = read("COFFER_DATABASE_POOL_MAX", positiveInteger, DEFAULT_DATABASE_POOL_MAX)
  const decodedSchemasMax = read("COFFER_DECODED_SCHEMAS_MAX", positiveInteger, DEFAULT_DECODED_SCHEMAS_MAX)
  const decodedCredentialsMax = read("COFFER_DECODED_CREDENTIALS_MAX", positiveInteger, DEFAULT_DECODED_CREDENTIALS_MAX)
  const sqliteStatementCache = read("COFFER_SQLITE_STATEMENT_CACHE", positiveInteger, DEFAULT_SQLITE_STATEMENT_CACHE)
  const sqliteWalAutocheckpoint = read(
    "COFFER_SQLITE_WAL_AUTOCHECKPOINT",
    positiveInteger,
    DEFAULT_SQLITE_WAL_AUTOCHECKPOINT,
  )
  const sqliteSynchronous_ = read("COFFER_SQLITE_SYNCHRONOUS", sqliteSynchronous, "normal" as const)
  const sqliteBusyTimeoutMs = read("COFFER_SQLITE_BUSY_TIMEOUT_MS", nonNegativeInteger, DEFAULT_SQLITE_BUSY_TIMEOUT_MS)
  const dataKeysMax = read("COFFER_DATA_KEYS_MAX", positiveInteger, DEFAULT_DATA_KEYS_MAX)
  const dataKeyTtlSeconds = read("COFFER_DATA_KEY_TTL_SECONDS", positiveInteger, DEFAULT_DATA_KEY_TTL_SECONDS)
  const trustedProxies_ = read("COFFER_TRUSTED_PROXIES", proxies, [])
  const requestTimeoutSeconds = read("COFFER_REQUEST_TIMEOUT_SECONDS", positiveInteger, DEFAULT_REQUEST_TIMEOUT_SECONDS)
  const youngGenerationMb_ = read("COFFER_YOUNG_GENERATION_MB", youngGenerationMb, DEFAULT_YOUNG_GENERATION_MB)
  const oldGenerationGrowthPercent_ = read(
    "COFFER_OLD_GENERATION_GROWTH_PERCENT",
    oldGenerationGrowthPercent,
    DEFAULT_OLD_GENERATION_GROWTH_PERCENT,
  )
  const operating = Operating.read(env, environment_, reader.report)
  if (reader.errors.length > 0) return Result.fail(reader.errors)
  return Result.succeed({
    host: host_,
    schemasPort,
    secretsPort,
    database: database_,
    redisUrl: redisUrl_,
    redisPrefix: redisPrefix_,
    environment: environment_,
    masterKey: masterKey_,
    previousMasterKeys: previousMasterKeys_,
    publicOrigin,
    schemasPublicOrigin,
    oidc,
    roles,
    corsOrigins,
    rateLimit,
    cacheMaxEntries,
    cacheMaxBytes,
    databasePoolMax,
    decodedSchemasMax,
    decodedCredentialsMax,
    sqliteStatementCache,
    sqliteWalAutocheckpoint,
    sqliteSynchronous: sqliteSynchronous_,
    sqliteBusyTimeoutMs,
    dataKeysMax,
    dataKeyTtlSeconds,
    trustedProxies: trustedProxies_,
    requestTimeoutSeconds,
    youngGenerationMb: youngGenerationMb_,
    oldGenerationGrowthPercent: oldGenerationGrowthPercent_,
    ...operating,
  })
}
