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
import { contains, parseAddress, parseRange, trustedProxies } from "@coffer/http"
import { Encoding } from "@coffer/kernel"
import { Redacted, Result, Schema } from "effect"
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
  /** `COFFER_TRUSTED_PROXIES`: addresses and CIDR ranges whose forwarding headers are believed (`@coffer/http`). */
  trustedProxies: Schema.Array(Schema.String),
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
const MASTER_KEY_BYTES = 32

/** What is wrong with one value, without the variable's name; `parse` prefixes it. */
type Check<A> = (raw: string) => Result.Result<A, string>

/** Reads variables and collects one line per bad one, so that all problems are reported together. */
const makeReader = (env: Env) => {
  const errors: Array<string> = []
  const raw = (name: string): string | undefined => {
    const value = env[name]?.trim()
    return value === undefined || value === "" ? undefined : value
  }
  const report = (name: string, problem: string) => {
    errors.push(`${name}: ${problem}`)
  }
  /** The checked value, `fallback` when unset, or `fallback` after reporting the problem. */
  const read = <A>(name: string, check: Check<A>, fallback: A): A => {
    const value = raw(name)
    if (value === undefined) return fallback
    const result = check(value)
    if (Result.isSuccess(result)) return result.success
    report(name, result.failure)
    return fallback
  }
  return { errors, raw, report, read }
}

const quoted = (value: string) => JSON.stringify(value)

const port: Check<number> = (raw) =>
  /^\d{1,5}$/.test(raw) && Number(raw) <= 65535
    ? Result.succeed(Number(raw))
    : Result.fail(`expected a port number 0-65535, got ${quoted(raw)}`)

const host: Check<string> = (raw) =>
  /^[A-Za-z0-9.:%_-]+$/.test(raw)
    ? Result.succeed(raw)
    : Result.fail(`expected a bind address such as 127.0.0.1, 0.0.0.0 or ::, got ${quoted(raw)}`)

const environment: Check<Environment> = (raw) =>
  raw === "development" || raw === "production"
    ? Result.succeed(raw)
    : Result.fail(`expected "development" or "production", got ${quoted(raw)}`)

const nonNegativeInteger: Check<number> = (raw) =>
  /^\d+$/.test(raw) && Number.isSafeInteger(Number(raw))
    ? Result.succeed(Number(raw))
    : Result.fail(`expected a non-negative integer, got ${quoted(raw)}`)

const positiveInteger: Check<number> = (raw) =>
  /^\d+$/.test(raw) && Number.isSafeInteger(Number(raw)) && Number(raw) >= 1
    ? Result.succeed(Number(raw))
    : Result.fail(`expected a positive integer, got ${quoted(raw)}`)

const parseUrl = (raw: string): URL | undefined => (URL.canParse(raw) ? new URL(raw) : undefined)

/** The scheme is never secret, the rest of a URL may be: only the scheme is ever echoed. */
const schemeOf = (raw: string) => /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(raw)?.[0]

const describeScheme = (raw: string) => {
  const scheme = schemeOf(raw)
  return scheme === undefined ? "a value with no scheme" : `scheme ${quoted(scheme)}`
}

const database: Check<Database> = (raw) => {
  const expected = "expected sqlite:<file>, sqlite::memory: or postgres://…"
  if (raw.startsWith("sqlite:")) {
    const filename = raw.slice("sqlite:".length)
    if (filename === "") return Result.fail(`${expected}, got sqlite: without a file name`)
    if (filename.startsWith("//")) {
      return Result.fail(`${expected}, got sqlite://…; write sqlite:<file>, for example sqlite:.coffer/coffer.db`)
    }
    return Result.succeed({ _tag: "Sqlite", filename })
  }
  const scheme = schemeOf(raw)
  if (scheme === "postgres:" || scheme === "postgresql:") {
    return parseUrl(raw) === undefined
      ? Result.fail(`${expected}, got a postgres URL that does not parse (check the escaping of the password)`)
      : Result.succeed({ _tag: "Postgres", url: Redacted.make(raw, { label: "COFFER_DATABASE_URL" }) })
  }
  return Result.fail(`${expected}, got ${describeScheme(raw)}`)
}

const redisUrl: Check<Redacted.Redacted<string>> = (raw) => {
  const scheme = schemeOf(raw)
  if (scheme !== "redis:" && scheme !== "rediss:") {
    return Result.fail(`expected redis://… or rediss://…, got ${describeScheme(raw)}`)
  }
  return parseUrl(raw) === undefined
    ? Result.fail(
        `expected redis://… or rediss://…, got a URL that does not parse (check the escaping of the password)`,
      )
    : Result.succeed(Redacted.make(raw, { label: "COFFER_REDIS_URL" }))
}

const redisPrefix: Check<string> = (raw) =>
  /^[\x21-\x7e]{1,64}$/.test(raw)
    ? Result.succeed(raw)
    : Result.fail(`expected 1-64 printable ASCII characters without spaces, such as coffer:, got ${quoted(raw)}`)

const isMasterKey = (raw: string) => Encoding.fromBase64(raw)?.length === MASTER_KEY_BYTES

const masterKey: Check<Redacted.Redacted<string>> = (raw) =>
  isMasterKey(raw)
    ? Result.succeed(Redacted.make(raw, { label: "COFFER_MASTER_KEY" }))
    : Result.fail(`expected base64 of ${MASTER_KEY_BYTES} bytes`)

const previousMasterKeys: Check<ReadonlyArray<Redacted.Redacted<string>>> = (raw) => {
  const entries = splitList(raw, ",")
  const bad = entries.flatMap((entry, index) => (isMasterKey(entry) ? [] : [index + 1]))
  if (bad.length > 0) {
    const which = bad.length === 1 ? `entry ${bad[0]} is` : `entries ${bad.join(", ")} are`
    return Result.fail(`expected comma-separated base64 keys of ${MASTER_KEY_BYTES} bytes; ${which} not`)
  }
  return Result.succeed(entries.map((entry) => Redacted.make(entry, { label: "COFFER_MASTER_KEY_PREVIOUS" })))
}

/** Splits on `separator`, trims, and drops empty entries (a trailing separator is harmless). */
const splitList = (raw: string, separator: string) =>
  raw
    .split(separator)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")

/** `scheme://host[:port]` with nothing after it but an optional `/`; returns the normalised origin. */
const toOrigin = (raw: string): string | undefined => {
  const url = parseUrl(raw)
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) return undefined
  if (url.username !== "" || url.password !== "" || url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    return undefined
  }
  if (/[?#]/.test(raw)) return undefined
  return url.origin
}

const origin: Check<string> = (raw) => {
  const normalised = toOrigin(raw)
  return normalised === undefined
    ? Result.fail(
        `expected an origin such as https://coffer.example.com (scheme, host, optional port, no path), got ${quoted(raw)}`,
      )
    : Result.succeed(normalised)
}

const origins: Check<ReadonlyArray<string>> = (raw) => {
  const result: Array<string> = []
  for (const entry of splitList(raw, ",")) {
    if (entry === "*") {
      return Result.fail(`"*" is not allowed (credentials are allowed for listed origins); list the origins instead`)
    }
    const normalised = toOrigin(entry)
    if (normalised === undefined) {
      return Result.fail(
        `expected comma-separated origins such as https://app.example.com (no path), got ${quoted(entry)}`,
      )
    }
    if (!result.includes(normalised)) result.push(normalised)
  }
  return Result.succeed(result)
}

const proxies: Check<ReadonlyArray<string>> = (raw) => {
  const entries = splitList(raw, ",")
  const parsed = trustedProxies(entries)
  return Result.isSuccess(parsed)
    ? Result.succeed(entries)
    : Result.fail(
        `expected comma-separated addresses or CIDR ranges such as 10.0.0.0/8 or fd00::/8, got ${quoted(parsed.failure)}`,
      )
}

const allowInsecureHttp: Check<boolean> = (raw) =>
  raw === "1" || raw === "0" ? Result.succeed(raw === "1") : Result.fail(`expected 1 or 0, got ${quoted(raw)}`)

const LOOPBACK = [parseRange("127.0.0.0/8")!, parseRange("::1")!]

/** Whether only this machine can reach the bind address. */
const isLoopback = (bindAddress: string) => {
  const address = parseAddress(bindAddress)
  return bindAddress === "localhost" || (address !== undefined && LOOPBACK.some((range) => contains(range, address)))
}

/**
 * In production, a plain-http public origin on an address other machines reach would send session cookies and
 * secrets unencrypted (and without `Secure`); it takes `COFFER_ALLOW_INSECURE_HTTP=1` to say that is meant.
 */
const refuseInsecureOrigins = (
  reader: ReturnType<typeof makeReader>,
  bindAddress: string,
  origins: Readonly<Record<string, string | undefined>>,
) => {
  if (isLoopback(bindAddress)) return
  for (const [name, value] of Object.entries(origins)) {
    if (value?.startsWith("http://")) {
      reader.report(
        name,
        `${value} is not https, and COFFER_HOST=${bindAddress} is reachable from other machines: sessions and secrets would travel unencrypted; use an https origin (TLS at a proxy) or set COFFER_ALLOW_INSECURE_HTTP=1`,
      )
    }
  }
}

const httpUrl: Check<string> = (raw) => {
  const url = parseUrl(raw)
  return url !== undefined && (url.protocol === "https:" || url.protocol === "http:")
    ? Result.succeed(raw)
    : Result.fail(`expected an http(s) URL such as https://id.example.com, got ${quoted(raw)}`)
}

const text: Check<string> = (raw) => Result.succeed(raw)

/** `platform:g1,g2;platform2:g3`; a platform listed twice is ambiguous and rejected. */
const platformEditors: Check<ReadonlyMap<string, ReadonlyArray<string>>> = (raw) => {
  const map = new Map<string, ReadonlyArray<string>>()
  const expected = `expected platform:group[,group…] entries separated by ";"`
  for (const entry of splitList(raw, ";")) {
    const colon = entry.indexOf(":")
    const platform = colon === -1 ? "" : entry.slice(0, colon).trim()
    const groups =
      colon === -1
        ? []
        : entry
            .slice(colon + 1)
            .split(",")
            .map((group) => group.trim())
    if (platform === "" || groups.length === 0 || groups.some((group) => group === "" || group.includes(":"))) {
      return Result.fail(`${expected}, got malformed entry ${quoted(entry)}`)
    }
    if (map.has(platform)) return Result.fail(`platform ${quoted(platform)} is listed twice`)
    map.set(platform, groups)
  }
  return Result.succeed(map)
}

const readRoles = (reader: ReturnType<typeof makeReader>): Roles => ({
  claim: reader.read("OIDC_ROLES_CLAIM", text, DEFAULT_ROLES_CLAIM),
  editorGroup: reader.read<string | undefined>("OIDC_EDITOR_GROUP", text, undefined),
  adminGroup: reader.read<string | undefined>("OIDC_ADMIN_GROUP", text, undefined),
  platformEditors: reader.read("OIDC_PLATFORM_EDITORS", platformEditors, new Map()),
})

/** Issuer and client id go together; a secret or a name without them is a mistake worth reporting. */
const readOidc = (reader: ReturnType<typeof makeReader>): Oidc | undefined => {
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

/** Every setting of the host contract table, or one line per bad setting. */
export const parse = (env: Env): Result.Result<Settings, ReadonlyArray<string>> => {
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
  if (!development && reader.raw("COFFER_MASTER_KEY") === undefined) {
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
  const trustedProxies_ = read("COFFER_TRUSTED_PROXIES", proxies, [])
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
    trustedProxies: trustedProxies_,
    ...operating,
  })
}
