import { Encoding } from "@coffer/kernel"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import * as Settings from "./Settings.js"

const key = (fill: number) => Encoding.toBase64(new Uint8Array(32).fill(fill))
const KEY = key(1)
/** The smallest valid production environment. */
const PRODUCTION = { COFFER_MASTER_KEY: KEY }

const ok = (env: Settings.Env): Settings.Settings => {
  const result = Settings.parse(env)
  if (Result.isFailure(result)) throw new Error(`expected valid settings, got:\n${result.failure.join("\n")}`)
  return result.success
}

const errorsOf = (env: Settings.Env): ReadonlyArray<string> => {
  const result = Settings.parse(env)
  if (Result.isSuccess(result)) throw new Error("expected the settings to be rejected")
  return result.failure
}

describe("Settings.parse defaults", () => {
  it("fills in every default of the host contract table in production", () => {
    const settings = ok(PRODUCTION)
    expect(Schema.is(Settings.Settings)(settings)).toBe(true)
    expect(settings).toMatchObject({
      host: "127.0.0.1",
      schemasPort: 8787,
      secretsPort: 8788,
      database: { _tag: "Sqlite", filename: ".coffer/coffer.db" },
      redisUrl: undefined,
      redisPrefix: "coffer:",
      environment: "production",
      previousMasterKeys: [],
      publicOrigin: undefined,
      schemasPublicOrigin: undefined,
      oidc: undefined,
      corsOrigins: [],
      rateLimit: 30,
      cacheMaxEntries: 100_000,
      cacheMaxBytes: 64 * 1024 * 1024,
      databasePoolMax: 10,
      decodedSchemasMax: 1_000,
      decodedCredentialsMax: 1_000,
      sqliteStatementCache: 256,
      sqliteWalAutocheckpoint: 10_000,
      sqliteSynchronous: "normal",
      sqliteBusyTimeoutMs: 5_000,
      dataKeysMax: 1_000,
      dataKeyTtlSeconds: 300,
      trustedProxies: [],
      requestTimeoutSeconds: 30,
      youngGenerationMb: 16,
      oldGenerationGrowthPercent: 100,
    })
    expect(settings.roles).toEqual({
      claim: "groups",
      editorGroup: undefined,
      adminGroup: undefined,
      platformEditors: new Map(),
    })
    expect(Redacted.value(settings.masterKey!)).toBe(KEY)
  })

  it("in development needs no master key and turns rate limits off", () => {
    const settings = ok({ COFFER_ENV: "development" })
    expect(settings.environment).toBe("development")
    expect(settings.masterKey).toBeUndefined()
    expect(settings.rateLimit).toBe(0)
  })

  it("requires the master key in production", () => {
    expect(errorsOf({})).toEqual(["COFFER_MASTER_KEY: required in production (base64 of 32 bytes)"])
    expect(errorsOf({ COFFER_ENV: "production", COFFER_MASTER_KEY: "  " })).toEqual([
      "COFFER_MASTER_KEY: required in production (base64 of 32 bytes)",
    ])
  })

  it("treats empty values as unset and ignores surrounding whitespace", () => {
    const settings = ok({ ...PRODUCTION, COFFER_HOST: "", COFFER_SCHEMAS_PORT: " 9000 ", CORS_ORIGIN: " " })
    expect(settings.host).toBe("127.0.0.1")
    expect(settings.schemasPort).toBe(9000)
    expect(settings.corsOrigins).toEqual([])
  })
})

type ValidCase = readonly [
  name: string,
  value: string,
  expected: (settings: Settings.Settings) => unknown,
  want: unknown,
]

const valid: ReadonlyArray<ValidCase> = [
  ["COFFER_HOST", "0.0.0.0", (s) => s.host, "0.0.0.0"],
  ["COFFER_HOST", "::", (s) => s.host, "::"],
  ["COFFER_HOST", "localhost", (s) => s.host, "localhost"],
  ["COFFER_SCHEMAS_PORT", "0", (s) => s.schemasPort, 0],
  ["COFFER_SCHEMAS_PORT", "65535", (s) => s.schemasPort, 65535],
  ["COFFER_SECRETS_PORT", "9001", (s) => s.secretsPort, 9001],
  ["COFFER_DATABASE_URL", "sqlite:data/c.db", (s) => s.database, { _tag: "Sqlite", filename: "data/c.db" }],
  ["COFFER_DATABASE_URL", "sqlite::memory:", (s) => s.database, { _tag: "Sqlite", filename: ":memory:" }],
  [
    "COFFER_DATABASE_URL",
    "postgres://u:pw@db:5432/coffer",
    (s) => s.database._tag === "Postgres" && Redacted.value(s.database.url),
    "postgres://u:pw@db:5432/coffer",
  ],
  [
    "COFFER_DATABASE_URL",
    "postgresql://db/coffer",
    (s) => s.database._tag === "Postgres" && Redacted.value(s.database.url),
    "postgresql://db/coffer",
  ],
  ["COFFER_REDIS_URL", "redis://:pw@cache:6379/0", (s) => Redacted.value(s.redisUrl!), "redis://:pw@cache:6379/0"],
  ["COFFER_REDIS_URL", "rediss://cache", (s) => Redacted.value(s.redisUrl!), "rediss://cache"],
  // Whether the server has database 99 is known only once connected (the cache refuses to start otherwise).
  ["COFFER_REDIS_URL", "redis://cache/99", (s) => Redacted.value(s.redisUrl!), "redis://cache/99"],
  ["COFFER_REDIS_PREFIX", "staging:coffer:", (s) => s.redisPrefix, "staging:coffer:"],
  ["COFFER_ENV", "production", (s) => s.environment, "production"],
  ["COFFER_MASTER_KEY", key(7), (s) => Redacted.value(s.masterKey!), key(7)],
  [
    "COFFER_MASTER_KEY_PREVIOUS",
    `${key(2)}, ${key(3)},`,
    (s) => s.previousMasterKeys.map(Redacted.value),
    [key(2), key(3)],
  ],
  ["COFFER_PUBLIC_ORIGIN", "https://secrets.example.com/", (s) => s.publicOrigin, "https://secrets.example.com"],
  ["COFFER_PUBLIC_ORIGIN", "http://localhost:8788", (s) => s.publicOrigin, "http://localhost:8788"],
  ["COFFER_SCHEMAS_PUBLIC_ORIGIN", "https://s.example.com:443", (s) => s.schemasPublicOrigin, "https://s.example.com"],
  ["OIDC_ROLES_CLAIM", "roles", (s) => s.roles.claim, "roles"],
  ["OIDC_EDITOR_GROUP", "editors", (s) => s.roles.editorGroup, "editors"],
  ["OIDC_ADMIN_GROUP", "admins", (s) => s.roles.adminGroup, "admins"],
  [
    "OIDC_PLATFORM_EDITORS",
    "ios:mobile, leads; web : front;",
    (s) => s.roles.platformEditors,
    new Map([
      ["ios", ["mobile", "leads"]],
      ["web", ["front"]],
    ]),
  ],
  [
    "CORS_ORIGIN",
    "https://app.example.com, http://localhost:5173,https://app.example.com/",
    (s) => s.corsOrigins,
    ["https://app.example.com", "http://localhost:5173"],
  ],
  ["COFFER_RATE_LIMIT", "0", (s) => s.rateLimit, 0],
  ["COFFER_RATE_LIMIT", "120", (s) => s.rateLimit, 120],
  ["COFFER_CACHE_MAX_ENTRIES", "500", (s) => s.cacheMaxEntries, 500],
  ["COFFER_DATABASE_POOL_MAX", "32", (s) => s.databasePoolMax, 32],
  ["COFFER_DECODED_SCHEMAS_MAX", "100", (s) => s.decodedSchemasMax, 100],
  ["COFFER_DECODED_CREDENTIALS_MAX", "50", (s) => s.decodedCredentialsMax, 50],
  ["COFFER_SQLITE_STATEMENT_CACHE", "64", (s) => s.sqliteStatementCache, 64],
  ["COFFER_SQLITE_WAL_AUTOCHECKPOINT", "2000", (s) => s.sqliteWalAutocheckpoint, 2000],
  ["COFFER_SQLITE_SYNCHRONOUS", "full", (s) => s.sqliteSynchronous, "full"],
  ["COFFER_SQLITE_SYNCHRONOUS", "normal", (s) => s.sqliteSynchronous, "normal"],
  ["COFFER_SQLITE_BUSY_TIMEOUT_MS", "0", (s) => s.sqliteBusyTimeoutMs, 0],
  ["COFFER_SQLITE_BUSY_TIMEOUT_MS", "15000", (s) => s.sqliteBusyTimeoutMs, 15000],
  ["COFFER_DATA_KEYS_MAX", "50", (s) => s.dataKeysMax, 50],
  ["COFFER_DATA_KEY_TTL_SECONDS", "30", (s) => s.dataKeyTtlSeconds, 30],
  ["COFFER_REQUEST_TIMEOUT_SECONDS", "120", (s) => s.requestTimeoutSeconds, 120],
  ["COFFER_YOUNG_GENERATION_MB", "0", (s) => s.youngGenerationMb, 0],
  ["COFFER_YOUNG_GENERATION_MB", "2", (s) => s.youngGenerationMb, 2],
  ["COFFER_YOUNG_GENERATION_MB", "32", (s) => s.youngGenerationMb, 32],
  ["COFFER_OLD_GENERATION_GROWTH_PERCENT", "0", (s) => s.oldGenerationGrowthPercent, 0],
  ["COFFER_OLD_GENERATION_GROWTH_PERCENT", "50", (s) => s.oldGenerationGrowthPercent, 50],
  ["COFFER_CACHE_MAX_BYTES", "1048576", (s) => s.cacheMaxBytes, 1048576],
  [
    "COFFER_TRUSTED_PROXIES",
    "10.0.0.0/8, 192.0.2.7,fd00::/8, ::1",
    (s) => s.trustedProxies,
    ["10.0.0.0/8", "192.0.2.7", "fd00::/8", "::1"],
  ],
]

describe("Settings.parse accepts every variable's valid forms", () => {
  it.each(valid)("%s=%s", (name, value, select, want) => {
    expect(select(ok({ ...PRODUCTION, [name]: value }))).toEqual(want)
  })

  it("reads the identity provider when issuer and client id are set", () => {
    const settings = ok({
      ...PRODUCTION,
      OIDC_ISSUER: "https://id.example.com/realms/x",
      OIDC_CLIENT_ID: "coffer",
      OIDC_CLIENT_SECRET: "s3cret",
      OIDC_NAME: "Acme SSO",
    })
    expect(settings.oidc).toMatchObject({
      issuer: "https://id.example.com/realms/x",
      clientId: "coffer",
      name: "Acme SSO",
    })
    expect(Redacted.value(settings.oidc!.clientSecret!)).toBe("s3cret")
  })

  it("allows a public OIDC client and names the button by default", () => {
    const settings = ok({ ...PRODUCTION, OIDC_ISSUER: "http://127.0.0.1:4000", OIDC_CLIENT_ID: "coffer" })
    expect(settings.oidc).toEqual({
      issuer: "http://127.0.0.1:4000",
      clientId: "coffer",
      clientSecret: undefined,
      name: "OpenID Connect",
    })
  })
})

type InvalidCase = readonly [env: Settings.Env, line: string]

const invalid: ReadonlyArray<InvalidCase> = [
  [
    { COFFER_HOST: "http://x" },
    'COFFER_HOST: expected a bind address such as 127.0.0.1, 0.0.0.0 or ::, got "http://x"',
  ],
  [{ COFFER_SCHEMAS_PORT: "abc" }, 'COFFER_SCHEMAS_PORT: expected a port number 0-65535, got "abc"'],
  [{ COFFER_SCHEMAS_PORT: "65536" }, 'COFFER_SCHEMAS_PORT: expected a port number 0-65535, got "65536"'],
  [{ COFFER_SECRETS_PORT: "-1" }, 'COFFER_SECRETS_PORT: expected a port number 0-65535, got "-1"'],
  [{ COFFER_SECRETS_PORT: "80.5" }, 'COFFER_SECRETS_PORT: expected a port number 0-65535, got "80.5"'],
  [
    { COFFER_DATABASE_URL: "mysql://root:hunter2@db/x" },
    'COFFER_DATABASE_URL: expected sqlite:<file>, sqlite::memory: or postgres://…, got scheme "mysql:"',
  ],
  [
    { COFFER_DATABASE_URL: "sqlite:" },
    "COFFER_DATABASE_URL: expected sqlite:<file>, sqlite::memory: or postgres://…, got sqlite: without a file name",
  ],
  [
    { COFFER_DATABASE_URL: "sqlite://c.db" },
    "COFFER_DATABASE_URL: expected sqlite:<file>, sqlite::memory: or postgres://…, got sqlite://…; write sqlite:<file>, for example sqlite:.coffer/coffer.db",
  ],
  [
    { COFFER_DATABASE_URL: "coffer.db" },
    "COFFER_DATABASE_URL: expected sqlite:<file>, sqlite::memory: or postgres://…, got a value with no scheme",
  ],
  [
    { COFFER_DATABASE_URL: "postgres://u:p w@[bad/x" },
    "COFFER_DATABASE_URL: expected sqlite:<file>, sqlite::memory: or postgres://…, got a postgres URL that does not parse (check the escaping of the password)",
  ],
  [{ COFFER_REDIS_URL: "http://cache:6379" }, 'COFFER_REDIS_URL: expected redis://… or rediss://…, got scheme "http:"'],
  // The database index is the path: ioredis read `/abc` as database 0 (or crashed Node on `SELECT NaN`).
  [
    { COFFER_REDIS_URL: "redis://:pw@cache:6379/abc" },
    'COFFER_REDIS_URL: expected a database index, a non-negative integer (redis://host:6379/0), got the path "/abc"',
  ],
  [
    { COFFER_REDIS_URL: "redis://cache:6379/-1" },
    'COFFER_REDIS_URL: expected a database index, a non-negative integer (redis://host:6379/0), got the path "/-1"',
  ],
  [
    { COFFER_REDIS_URL: "redis://cache:6379?db=x" },
    'COFFER_REDIS_URL: expected a database index, a non-negative integer (redis://host:6379/0), got db="x"',
  ],
  [{ COFFER_ENV: "dev" }, 'COFFER_ENV: expected "development" or "production", got "dev"'],
  [{ COFFER_ENV: "test" }, 'COFFER_ENV: expected "development" or "production", got "test"'],
  [{ COFFER_MASTER_KEY: "not-a-key" }, "COFFER_MASTER_KEY: expected base64 of 32 bytes"],
  [{ COFFER_MASTER_KEY: Encoding.toBase64(new Uint8Array(16)) }, "COFFER_MASTER_KEY: expected base64 of 32 bytes"],
  [
    { COFFER_MASTER_KEY_PREVIOUS: `${key(2)},short` },
    "COFFER_MASTER_KEY_PREVIOUS: expected comma-separated base64 keys of 32 bytes; entry 2 is not",
  ],
  [
    { COFFER_MASTER_KEY_PREVIOUS: "a,b" },
    "COFFER_MASTER_KEY_PREVIOUS: expected comma-separated base64 keys of 32 bytes; entries 1, 2 are not",
  ],
  [
    { COFFER_PUBLIC_ORIGIN: "https://x.example.com/app" },
    'COFFER_PUBLIC_ORIGIN: expected an origin such as https://coffer.example.com (scheme, host, optional port, no path), got "https://x.example.com/app"',
  ],
  [
    { COFFER_SCHEMAS_PUBLIC_ORIGIN: "ftp://x" },
    'COFFER_SCHEMAS_PUBLIC_ORIGIN: expected an origin such as https://coffer.example.com (scheme, host, optional port, no path), got "ftp://x"',
  ],
  [
    { COFFER_SCHEMAS_PUBLIC_ORIGIN: "https://x?y" },
    'COFFER_SCHEMAS_PUBLIC_ORIGIN: expected an origin such as https://coffer.example.com (scheme, host, optional port, no path), got "https://x?y"',
  ],
  [
    { OIDC_ISSUER: "id.example.com", OIDC_CLIENT_ID: "c" },
    'OIDC_ISSUER: expected an http(s) URL such as https://id.example.com, got "id.example.com"',
  ],
  [{ OIDC_ISSUER: "https://id.example.com" }, "OIDC_CLIENT_ID: required when OIDC_ISSUER is set"],
  [{ OIDC_CLIENT_ID: "coffer" }, "OIDC_ISSUER: required when OIDC_CLIENT_ID is set"],
  [{ OIDC_CLIENT_SECRET: "orphan" }, "OIDC_CLIENT_SECRET: set, but OIDC_ISSUER and OIDC_CLIENT_ID are not"],
  [{ OIDC_NAME: "Acme" }, "OIDC_NAME: set, but OIDC_ISSUER and OIDC_CLIENT_ID are not"],
  [
    { OIDC_PLATFORM_EDITORS: "ios" },
    'OIDC_PLATFORM_EDITORS: expected platform:group[,group…] entries separated by ";", got malformed entry "ios"',
  ],
  [
    { OIDC_PLATFORM_EDITORS: "ios:a,,b" },
    'OIDC_PLATFORM_EDITORS: expected platform:group[,group…] entries separated by ";", got malformed entry "ios:a,,b"',
  ],
  [
    { OIDC_PLATFORM_EDITORS: ":a" },
    'OIDC_PLATFORM_EDITORS: expected platform:group[,group…] entries separated by ";", got malformed entry ":a"',
  ],
  [
    { OIDC_PLATFORM_EDITORS: "ios:" },
    'OIDC_PLATFORM_EDITORS: expected platform:group[,group…] entries separated by ";", got malformed entry "ios:"',
  ],
  [{ OIDC_PLATFORM_EDITORS: "ios:a;ios:b" }, 'OIDC_PLATFORM_EDITORS: platform "ios" is listed twice'],
  [
    { CORS_ORIGIN: "https://ok.example.com,app.example.com" },
    'CORS_ORIGIN: expected comma-separated origins such as https://app.example.com (no path), got "app.example.com"',
  ],
  [
    { CORS_ORIGIN: "*" },
    'CORS_ORIGIN: "*" is not allowed (credentials are allowed for listed origins); list the origins instead',
  ],
  [
    { COFFER_REDIS_PREFIX: "two words" },
    'COFFER_REDIS_PREFIX: expected 1-64 printable ASCII characters without spaces, such as coffer:, got "two words"',
  ],
  [{ COFFER_RATE_LIMIT: "-5" }, 'COFFER_RATE_LIMIT: expected a non-negative integer, got "-5"'],
  [{ COFFER_RATE_LIMIT: "ten" }, 'COFFER_RATE_LIMIT: expected a non-negative integer, got "ten"'],
  [{ COFFER_CACHE_MAX_ENTRIES: "0" }, 'COFFER_CACHE_MAX_ENTRIES: expected a positive integer, got "0"'],
  [{ COFFER_DATABASE_POOL_MAX: "0" }, 'COFFER_DATABASE_POOL_MAX: expected a positive integer, got "0"'],
  [{ COFFER_DECODED_SCHEMAS_MAX: "-1" }, 'COFFER_DECODED_SCHEMAS_MAX: expected a positive integer, got "-1"'],
  [{ COFFER_DECODED_CREDENTIALS_MAX: "0" }, 'COFFER_DECODED_CREDENTIALS_MAX: expected a positive integer, got "0"'],
  [{ COFFER_SQLITE_STATEMENT_CACHE: "0" }, 'COFFER_SQLITE_STATEMENT_CACHE: expected a positive integer, got "0"'],
  [{ COFFER_SQLITE_WAL_AUTOCHECKPOINT: "0" }, 'COFFER_SQLITE_WAL_AUTOCHECKPOINT: expected a positive integer, got "0"'],
  [{ COFFER_SQLITE_SYNCHRONOUS: "OFF" }, 'COFFER_SQLITE_SYNCHRONOUS: expected "normal" or "full", got "OFF"'],
  [{ COFFER_SQLITE_BUSY_TIMEOUT_MS: "5s" }, 'COFFER_SQLITE_BUSY_TIMEOUT_MS: expected a non-negative integer, got "5s"'],
  [{ COFFER_DATA_KEYS_MAX: "0" }, 'COFFER_DATA_KEYS_MAX: expected a positive integer, got "0"'],
  [{ COFFER_DATA_KEY_TTL_SECONDS: "5m" }, 'COFFER_DATA_KEY_TTL_SECONDS: expected a positive integer, got "5m"'],
  [{ COFFER_REQUEST_TIMEOUT_SECONDS: "0" }, 'COFFER_REQUEST_TIMEOUT_SECONDS: expected a positive integer, got "0"'],
  [
    { COFFER_YOUNG_GENERATION_MB: "1" },
    `COFFER_YOUNG_GENERATION_MB: expected 0 (V8's own sizing) or a whole number of MB from 2, got "1"`,
  ],
  [
    { COFFER_YOUNG_GENERATION_MB: "8MB" },
    `COFFER_YOUNG_GENERATION_MB: expected 0 (V8's own sizing) or a whole number of MB from 2, got "8MB"`,
  ],
  [
    { COFFER_OLD_GENERATION_GROWTH_PERCENT: "2000" },
    `COFFER_OLD_GENERATION_GROWTH_PERCENT: expected 0 (V8's own growth) or a whole percentage up to 1000, got "2000"`,
  ],
  [{ COFFER_CACHE_MAX_BYTES: "1MB" }, 'COFFER_CACHE_MAX_BYTES: expected a positive integer, got "1MB"'],
  [
    { COFFER_TRUSTED_PROXIES: "10.0.0.1, 10.0.0.0/33" },
    'COFFER_TRUSTED_PROXIES: expected comma-separated addresses or CIDR ranges such as 10.0.0.0/8 or fd00::/8, got "10.0.0.0/33"',
  ],
  [
    { COFFER_TRUSTED_PROXIES: "proxy.internal" },
    'COFFER_TRUSTED_PROXIES: expected comma-separated addresses or CIDR ranges such as 10.0.0.0/8 or fd00::/8, got "proxy.internal"',
  ],
]

describe("Settings.parse rejects each bad variable with one line", () => {
  it.each(invalid)("%o", (env, line) => {
    expect(errorsOf({ ...PRODUCTION, ...env })).toEqual([line])
  })

  it("reports every bad setting together, in table order", () => {
    const lines = errorsOf({
      COFFER_SCHEMAS_PORT: "abc",
      COFFER_SECRETS_PORT: "70000",
      COFFER_ENV: "staging",
      OIDC_CLIENT_ID: "coffer",
      COFFER_RATE_LIMIT: "x",
    })
    expect(lines).toEqual([
      'COFFER_SCHEMAS_PORT: expected a port number 0-65535, got "abc"',
      'COFFER_SECRETS_PORT: expected a port number 0-65535, got "70000"',
      'COFFER_ENV: expected "development" or "production", got "staging"',
      // An unknown COFFER_ENV is treated as production for the other checks: the key is then required.
      "COFFER_MASTER_KEY: required in production (base64 of 32 bytes)",
      "OIDC_ISSUER: required when OIDC_CLIENT_ID is set",
      'COFFER_RATE_LIMIT: expected a non-negative integer, got "x"',
    ])
  })

  it("never echoes a secret value", () => {
    const secrets = {
      COFFER_DATABASE_URL: "postgres://admin:TOPSECRET1@[db/coffer",
      COFFER_REDIS_URL: "http://:TOPSECRET2@cache",
      COFFER_MASTER_KEY: "TOPSECRET3",
      COFFER_MASTER_KEY_PREVIOUS: "TOPSECRET4",
      OIDC_CLIENT_SECRET: "TOPSECRET5",
    }
    const lines = errorsOf(secrets)
    expect(lines.map((line) => line.split(":")[0])).toEqual(Object.keys(secrets))
    for (const line of lines) expect(line).not.toMatch(/TOPSECRET|admin/)
  })

  it("keeps secrets redacted when printed", () => {
    const settings = ok({
      COFFER_MASTER_KEY: KEY,
      COFFER_DATABASE_URL: "postgres://u:TOPSECRET@db/x",
      COFFER_REDIS_URL: "redis://:TOPSECRET@cache",
      OIDC_ISSUER: "https://id.example.com",
      OIDC_CLIENT_ID: "coffer",
      OIDC_CLIENT_SECRET: "TOPSECRET",
    })
    const printed = `${JSON.stringify(settings)} ${String(settings.masterKey)} ${String(settings.redisUrl)}`
    expect(printed).not.toContain("TOPSECRET")
    expect(printed).not.toContain(KEY)
  })
})

describe("Settings.parse refuses plain http where other machines can reach it, in production", () => {
  const insecure = (variable: string, origin: string, host: string) =>
    `${variable}: ${origin} is not https, and COFFER_HOST=${host} is reachable from other machines: sessions and secrets would travel unencrypted; use an https origin (TLS at a proxy) or set COFFER_ALLOW_INSECURE_HTTP=1`

  it("stops on an http public origin on a non-loopback bind address, one line per origin", () => {
    expect(errorsOf({ ...PRODUCTION, COFFER_HOST: "0.0.0.0", COFFER_PUBLIC_ORIGIN: "http://coffer.example" })).toEqual([
      insecure("COFFER_PUBLIC_ORIGIN", "http://coffer.example", "0.0.0.0"),
    ])
    expect(
      errorsOf({
        ...PRODUCTION,
        COFFER_HOST: "::",
        COFFER_PUBLIC_ORIGIN: "http://a.example",
        COFFER_SCHEMAS_PUBLIC_ORIGIN: "http://b.example:8787",
      }),
    ).toEqual([
      insecure("COFFER_PUBLIC_ORIGIN", "http://a.example", "::"),
      insecure("COFFER_SCHEMAS_PUBLIC_ORIGIN", "http://b.example:8787", "::"),
    ])
    expect(
      errorsOf({ ...PRODUCTION, COFFER_HOST: "10.1.2.3", COFFER_SCHEMAS_PUBLIC_ORIGIN: "http://s.example" }),
    ).toEqual([insecure("COFFER_SCHEMAS_PUBLIC_ORIGIN", "http://s.example", "10.1.2.3")])
  })

  it("accepts https origins, loopback bind addresses, development, and COFFER_ALLOW_INSECURE_HTTP=1", () => {
    const http = { COFFER_PUBLIC_ORIGIN: "http://coffer.example", COFFER_SCHEMAS_PUBLIC_ORIGIN: "http://s.example" }
    ok({ ...PRODUCTION, COFFER_HOST: "0.0.0.0", COFFER_PUBLIC_ORIGIN: "https://coffer.example" })
    for (const host of ["127.0.0.1", "127.9.9.9", "::1", "localhost", "::ffff:127.0.0.1"]) {
      ok({ ...PRODUCTION, ...http, COFFER_HOST: host })
    }
    ok({ COFFER_ENV: "development", ...http, COFFER_HOST: "0.0.0.0" })
    ok({ ...PRODUCTION, ...http, COFFER_HOST: "0.0.0.0", COFFER_ALLOW_INSECURE_HTTP: "1" })
    expect(errorsOf({ ...PRODUCTION, ...http, COFFER_HOST: "0.0.0.0", COFFER_ALLOW_INSECURE_HTTP: "0" })).toHaveLength(
      2,
    )
  })

  it("reports a COFFER_ALLOW_INSECURE_HTTP that is neither 1 nor 0", () => {
    expect(errorsOf({ ...PRODUCTION, COFFER_ALLOW_INSECURE_HTTP: "yes" })).toEqual([
      'COFFER_ALLOW_INSECURE_HTTP: expected 1 or 0, got "yes"',
    ])
  })
})

describe("Settings.parseRoles", () => {
  it("reads only the roles settings, ignoring everything else", () => {
    const result = Settings.parseRoles({ COFFER_SCHEMAS_PORT: "abc", OIDC_ADMIN_GROUP: "admins" })
    expect(Result.isSuccess(result) && result.success.adminGroup).toBe("admins")
  })

  it("reports a malformed platform list", () => {
    expect(Settings.parseRoles({ OIDC_PLATFORM_EDITORS: "web" })).toEqual(
      Result.fail([
        'OIDC_PLATFORM_EDITORS: expected platform:group[,group…] entries separated by ";", got malformed entry "web"',
      ]),
    )
  })
})
