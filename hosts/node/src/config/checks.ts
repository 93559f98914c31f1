/**
 * What each setting may be: one `Check` per kind of value (a port, an origin, a database URL, a master key…), and
 * the reader that applies them and collects one line per bad setting. A check says what is wrong without the
 * variable's name (the reader prefixes it) and never echoes a secret: of a URL only its scheme is ever quoted.
 */
import { RedisCache } from "@coffer/adapter-redis"
import { trustedProxies } from "@coffer/http"
import { Encoding } from "@coffer/kernel"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import { MIN_YOUNG_GENERATION_MB, parseOldGenerationGrowthPercent, parseYoungGenerationMb } from "../heapGrowth.js"
import type { Database, Env, Environment } from "./Settings.js"

export const MASTER_KEY_BYTES = 32

/** What is wrong with one value, without the variable's name; `parse` prefixes it. */
export type Check<A> = (raw: string) => Result.Result<A, string>

/** Reads variables and collects one line per bad one, so that all problems are reported together. */
export const makeReader = (env: Env) => {
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

export const quoted = (value: string) => JSON.stringify(value)

export const port: Check<number> = (raw) =>
  /^\d{1,5}$/.test(raw) && Number(raw) <= 65535
    ? Result.succeed(Number(raw))
    : Result.fail(`expected a port number 0-65535, got ${quoted(raw)}`)

export const host: Check<string> = (raw) =>
  /^[A-Za-z0-9.:%_-]+$/.test(raw)
    ? Result.succeed(raw)
    : Result.fail(`expected a bind address such as 127.0.0.1, 0.0.0.0 or ::, got ${quoted(raw)}`)

export const environment: Check<Environment> = (raw) =>
  raw === "development" || raw === "production"
    ? Result.succeed(raw)
    : Result.fail(`expected "development" or "production", got ${quoted(raw)}`)

export const sqliteSynchronous: Check<"normal" | "full"> = (raw) =>
  raw === "normal" || raw === "full"
    ? Result.succeed(raw)
    : Result.fail(`expected "normal" or "full", got ${quoted(raw)}`)

export const nonNegativeInteger: Check<number> = (raw) =>
  /^\d+$/.test(raw) && Number.isSafeInteger(Number(raw))
    ? Result.succeed(Number(raw))
    : Result.fail(`expected a non-negative integer, got ${quoted(raw)}`)

export const positiveInteger: Check<number> = (raw) =>
  /^\d+$/.test(raw) && Number.isSafeInteger(Number(raw)) && Number(raw) >= 1
    ? Result.succeed(Number(raw))
    : Result.fail(`expected a positive integer, got ${quoted(raw)}`)

/** `COFFER_YOUNG_GENERATION_MB`: the same rule `limitHeapGrowth` applies before the settings are read. */
export const youngGenerationMb: Check<number> = (raw) => {
  const mb = parseYoungGenerationMb(raw)
  return mb === undefined
    ? Result.fail(
        `expected 0 (V8's own sizing) or a whole number of MB from ${MIN_YOUNG_GENERATION_MB}, got ${quoted(raw)}`,
      )
    : Result.succeed(mb)
}

/** `COFFER_OLD_GENERATION_GROWTH_PERCENT`: the same rule `limitHeapGrowth` applies before the settings are read. */
export const oldGenerationGrowthPercent: Check<number> = (raw) => {
  const percent = parseOldGenerationGrowthPercent(raw)
  return percent === undefined
    ? Result.fail(`expected 0 (V8's own growth) or a whole percentage up to 1000, got ${quoted(raw)}`)
    : Result.succeed(percent)
}

export const parseUrl = (raw: string): URL | undefined => (URL.canParse(raw) ? new URL(raw) : undefined)

/** The scheme is never secret, the rest of a URL may be: only the scheme is ever echoed. */
export const schemeOf = (raw: string) => /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(raw)?.[0]

export const describeScheme = (raw: string) => {
  const scheme = schemeOf(raw)
  return scheme === undefined ? "a value with no scheme" : `scheme ${quoted(scheme)}`
}

export const database: Check<Database> = (raw) => {
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

export const redisUrl: Check<Redacted.Redacted<string>> = (raw) => {
  const scheme = schemeOf(raw)
  if (scheme !== "redis:" && scheme !== "rediss:") {
    return Result.fail(`expected redis://… or rediss://…, got ${describeScheme(raw)}`)
  }
  if (parseUrl(raw) === undefined) {
    return Result.fail(
      `expected redis://… or rediss://…, got a URL that does not parse (check the escaping of the password)`,
    )
  }
  // The database index, as the cache reads it: whether the server has that database is known only once connected.
  const database = RedisCache.databaseIndex(raw)
  return Result.isFailure(database)
    ? Result.fail(database.failure)
    : Result.succeed(Redacted.make(raw, { label: "COFFER_REDIS_URL" }))
}

export const redisPrefix: Check<string> = (raw) =>
  /^[\x21-\x7e]{1,64}$/.test(raw)
    ? Result.succeed(raw)
    : Result.fail(`expected 1-64 printable ASCII characters without spaces, such as coffer:, got ${quoted(raw)}`)

export const isMasterKey = (raw: string) => Encoding.fromBase64(raw)?.length === MASTER_KEY_BYTES

export const masterKey: Check<Redacted.Redacted<string>> = (raw) =>
  isMasterKey(raw)
    ? Result.succeed(Redacted.make(raw, { label: "COFFER_MASTER_KEY" }))
    : Result.fail(`expected base64 of ${MASTER_KEY_BYTES} bytes`)

export const previousMasterKeys: Check<ReadonlyArray<Redacted.Redacted<string>>> = (raw) => {
  const entries = splitList(raw, ",")
  const bad = entries.flatMap((entry, index) => (isMasterKey(entry) ? [] : [index + 1]))
  if (bad.length > 0) {
    const which = bad.length === 1 ? `entry ${bad[0]} is` : `entries ${bad.join(", ")} are`
    return Result.fail(`expected comma-separated base64 keys of ${MASTER_KEY_BYTES} bytes; ${which} not`)
  }
  return Result.succeed(entries.map((entry) => Redacted.make(entry, { label: "COFFER_MASTER_KEY_PREVIOUS" })))
}

/** Splits on `separator`, trims, and drops empty entries (a trailing separator is harmless). */
export const splitList = (raw: string, separator: string) =>
  raw
    .split(separator)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")

/** `scheme://host[:port]` with nothing after it but an optional `/`; returns the normalised origin. */
export const toOrigin = (raw: string): string | undefined => {
  const url = parseUrl(raw)
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) return undefined
  if (url.username !== "" || url.password !== "" || url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    return undefined
  }
  if (/[?#]/.test(raw)) return undefined
  return url.origin
}

export const origin: Check<string> = (raw) => {
  const normalised = toOrigin(raw)
  return normalised === undefined
    ? Result.fail(
        `expected an origin such as https://coffer.example.com (scheme, host, optional port, no path), got ${quoted(raw)}`,
      )
    : Result.succeed(normalised)
}

export const origins: Check<ReadonlyArray<string>> = (raw) => {
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

export const proxies: Check<ReadonlyArray<string>> = (raw) => {
  const entries = splitList(raw, ",")
  const parsed = trustedProxies(entries)
  return Result.isSuccess(parsed)
    ? Result.succeed(entries)
    : Result.fail(
        `expected comma-separated addresses or CIDR ranges such as 10.0.0.0/8 or fd00::/8, got ${quoted(parsed.failure)}`,
      )
}

export const allowInsecureHttp: Check<boolean> = (raw) =>
  raw === "1" || raw === "0" ? Result.succeed(raw === "1") : Result.fail(`expected 1 or 0, got ${quoted(raw)}`)

export const httpUrl: Check<string> = (raw) => {
  const url = parseUrl(raw)
  return url !== undefined && (url.protocol === "https:" || url.protocol === "http:")
    ? Result.succeed(raw)
    : Result.fail(`expected an http(s) URL such as https://id.example.com, got ${quoted(raw)}`)
}

export const text: Check<string> = (raw) => Result.succeed(raw)

/** `platform:g1,g2;platform2:g3`; a platform listed twice is ambiguous and rejected. */
export const platformEditors: Check<ReadonlyMap<string, ReadonlyArray<string>>> = (raw) => {
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

/** The reader `makeReader` gives: `read` a variable through a check, `raw` it, or `report` a problem. */
export type Reader = ReturnType<typeof makeReader>
