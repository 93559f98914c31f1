import { Hasher, StoreUnavailable } from "@coffer/kernel"
import { admin, editor, makeEnvironment, T0, tokenFor } from "@coffer/test-kit/schemas"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import * as Platforms from "./platforms.js"
import {
  checkToken,
  INVALIDATION_CHANNEL,
  LAST_USED_PERIOD_MS,
  TOKEN_CHECK_TTL_MS,
  tokenCacheKey,
} from "./tokenChecks.js"
import * as TokenAdmin from "./tokens.js"

type Environment = ReturnType<typeof makeEnvironment>
const environments: Array<Environment> = []
const environment = () => {
  const created = makeEnvironment()
  environments.push(created)
  return created
}
afterEach(async () => {
  await Promise.all(environments.splice(0).map((env) => env.dispose()))
})

const withPlatforms = async (env: Environment, names: ReadonlyArray<string>) => {
  for (const name of names) await env.run(Platforms.putPlatform(admin, name, { name, versions: [] }))
}

/** Lets the subscriber fibers run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20))

describe("createToken", () => {
  it("returns cfs_ and 256 random bits once, stores only the SHA-256, and audits", async () => {
    const env = environment()
    await withPlatforms(env, ["ios", "web"])
    const { token, record } = await env.run(
      TokenAdmin.createToken(admin, { name: "CI", platforms: ["web", "ios", "web"] }),
    )
    expect(token).toMatch(/^cfs_[A-Za-z0-9_-]{43}$/)
    expect(record).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      name: "CI",
      platforms: ["ios", "web"],
      hint: `cfs_…${token.slice(-4)}`,
      createdAt: T0,
      createdBy: "admin@example.com",
      lastUsedAt: undefined,
    })
    const hash = await env.run(Hasher.Hasher.use((hasher) => hasher.sha256Hex(token)))
    expect(await env.run(env.store.findTokenByHash(hash))).toEqual({ ...record, hash })
    expect(JSON.stringify(await env.run(env.store.listTokens))).not.toContain(token.slice(4))
    const other = await env.run(TokenAdmin.createToken(admin, { name: "all" }))
    expect(other.token).not.toBe(token)
    expect(other.record.platforms).toBeNull()
    expect((await env.run(env.store.listAudit({ limit: 10 }))).map((entry) => entry.action)).toEqual([
      "token.create",
      "token.create",
    ])
  })

  it("checks the name and the platforms, and needs the admin permission", async () => {
    const env = environment()
    await withPlatforms(env, ["ios"])
    const error = (input: TokenAdmin.NewToken) => env.flip(TokenAdmin.createToken(admin, input))
    expect((await error({ name: "  " }))._tag).toBe("BadRequest")
    expect((await error({ name: "x".repeat(101) }))._tag).toBe("BadRequest")
    expect((await error({ name: "nul\u0000" }))._tag).toBe("BadRequest")
    expect((await error({ name: "a", platforms: [] })).message).toContain("at least one platform")
    expect((await error({ name: "a", platforms: ["ios", "nope"] })).message).toContain('"nope"')
    expect((await env.flip(TokenAdmin.createToken(editor, { name: "a" })))._tag).toBe("Forbidden")
    expect((await env.flip(TokenAdmin.createToken(tokenFor(null), { name: "a" })))._tag).toBe("Forbidden")
    expect((await env.flip(TokenAdmin.listTokens(editor)))._tag).toBe("Forbidden")
    expect(await env.run(TokenAdmin.listTokens(admin))).toEqual([])
  })
})

describe("checkToken", () => {
  it("turns a valid token into a read-only actor with its scope; anything else is 401", async () => {
    const env = environment()
    await withPlatforms(env, ["ios"])
    const { token, record } = await env.run(TokenAdmin.createToken(admin, { name: "CI", platforms: ["ios"] }))
    // The schema cache's generation (started by the platform's creation) is read with the check and travels on.
    expect(await env.run(checkToken(token))).toEqual({
      _tag: "Token",
      tokenId: record.id,
      platforms: ["ios"],
      generation: expect.any(String),
    })
    for (const bad of ["", "cfs_", `${token}x`, token.replace("cfs_", "cfk_"), `cfs_${"A".repeat(200)}`]) {
      expect(await env.flip(checkToken(bad))).toMatchObject({
        _tag: "Unauthorized",
        message: "Invalid or revoked API token",
      })
    }
  })

  it("records lastUsedAt at most once a period, without a write per request", async () => {
    const env = environment()
    const { token } = await env.run(TokenAdmin.createToken(admin, { name: "CI" }))
    let touches = 0
    const touch = env.store.touchToken
    ;(env.store as { touchToken: typeof touch }).touchToken = (id, at) =>
      Effect.suspend(() => {
        touches++
        return touch(id, at)
      })
    await env.run(checkToken(token))
    env.clock.advance(1_000)
    await env.run(checkToken(token))
    await env.run(checkToken(token))
    expect(touches).toBe(1)
    expect((await env.run(TokenAdmin.listTokens(admin)))[0]?.lastUsedAt).toBe(T0)
    env.clock.advance(LAST_USED_PERIOD_MS)
    await env.run(checkToken(token))
    expect(touches).toBe(2)
    expect((await env.run(TokenAdmin.listTokens(admin)))[0]?.lastUsedAt).toBe(T0 + 1_000 + LAST_USED_PERIOD_MS)
  })

  it("asks the database about a cached token at most once a cache lifetime", async () => {
    const env = environment()
    const { token } = await env.run(TokenAdmin.createToken(admin, { name: "CI" }))
    let lookups = 0
    const find = env.store.findTokenByHash
    ;(env.store as { findTokenByHash: typeof find }).findTokenByHash = (hash) =>
      Effect.suspend(() => {
        lookups++
        return find(hash)
      })
    for (let i = 0; i < 5; i++) await env.run(checkToken(token))
    expect(lookups).toBe(1)
    env.clock.advance(TOKEN_CHECK_TTL_MS)
    await env.run(checkToken(token))
    expect(lookups).toBe(2)
  })

  it("fails closed with StoreUnavailable while the cache is down, and recovers when it is back", async () => {
    const env = environment()
    const { token } = await env.run(TokenAdmin.createToken(admin, { name: "CI" }))
    await env.run(checkToken(token))
    env.cache.state.down = true
    expect(await env.flip(checkToken(token))).toMatchObject({ _tag: "StoreUnavailable", store: "cache" })
    expect(await env.flip(checkToken("cfs_unknown"))).toMatchObject({ _tag: "StoreUnavailable" })
    env.cache.state.down = false
    expect((await env.run(checkToken(token)))._tag).toBe("Token")
  })
})

describe("revokeToken", () => {
  it("stops the token at once, audits, and 404s the second time", async () => {
    const env = environment()
    const { token, record } = await env.run(TokenAdmin.createToken(admin, { name: "CI" }))
    await env.run(checkToken(token))
    expect((await env.flip(TokenAdmin.revokeToken(editor, record.id)))._tag).toBe("Forbidden")
    env.clock.advance(1)
    await env.run(TokenAdmin.revokeToken(admin, record.id))
    expect((await env.flip(checkToken(token)))._tag).toBe("Unauthorized")
    expect(await env.flip(TokenAdmin.revokeToken(admin, record.id))).toMatchObject({
      _tag: "TokenNotFound",
      message: "Token not found",
    })
    expect((await env.flip(TokenAdmin.revokeToken(admin, "odd/\u0000id")))._tag).toBe("TokenNotFound")
    expect(await env.run(TokenAdmin.listTokens(admin))).toEqual([])
    expect((await env.run(env.store.listAudit({ limit: 10 }))).map((entry) => entry.action)).toEqual([
      "token.revoke",
      "token.create",
    ])
  })

  it("reaches every instance, even one that cached the token after the revocation deleted it", async () => {
    const env = environment()
    const other = env.instance()
    const { token, record } = await env.run(TokenAdmin.createToken(admin, { name: "CI" }))
    await other.run(checkToken(token))
    const hash = await env.run(Hasher.Hasher.use((hasher) => hasher.sha256Hex(token)))
    const cachedEntry = env.cache.entries.get(tokenCacheKey(hash))
    expect(cachedEntry).toBeDefined()
    await settle()
    await env.run(TokenAdmin.revokeToken(admin, record.id))
    await settle()
    // The race: the other instance read the database before the revocation and writes its answer back late.
    env.cache.entries.set(tokenCacheKey(hash), cachedEntry!)
    expect((await other.flip(checkToken(token)))._tag).toBe("Unauthorized")
  })

  it("is applied by an instance that hears of it before that instance does anything else", async () => {
    const env = environment()
    const other = env.instance()
    const { token } = await env.run(TokenAdmin.createToken(admin, { name: "CI" }))
    expect((await other.run(checkToken(token)))._tag).toBe("Token")
    const hash = await env.run(Hasher.Hasher.use((hasher) => hasher.sha256Hex(token)))
    await settle()
    // An announcement arriving from elsewhere (as a Postgres notification does), then only the promise jobs that
    // follow it: no timer or later I/O callback runs before the next request is checked.
    Effect.runFork(env.cache.cache.publish(INVALIDATION_CHANNEL, hash))
    for (let job = 0; job < 20; job++) await Promise.resolve()
    expect((await other.flip(checkToken(token)))._tag).toBe("Unauthorized")
  })

  it("is refused, and the token keeps working, when the cache cannot be told", async () => {
    const env = environment()
    const { token, record } = await env.run(TokenAdmin.createToken(admin, { name: "CI" }))
    env.cache.state.down = true
    expect((await env.flip(TokenAdmin.revokeToken(admin, record.id)))._tag).toBe("StoreUnavailable")
    env.cache.state.down = false
    expect((await env.run(checkToken(token)))._tag).toBe("Token")
    expect(await env.run(TokenAdmin.listTokens(admin))).toHaveLength(1)
  })
})

describe("deleting a platform a token names", () => {
  it("takes it out of the token's platforms: a platform created later under the name is not the token's", async () => {
    const env = environment()
    await withPlatforms(env, ["ios", "web"])
    const both = await env.run(TokenAdmin.createToken(admin, { name: "both", platforms: ["ios", "web"] }))
    const only = await env.run(TokenAdmin.createToken(admin, { name: "only", platforms: ["ios"] }))
    const all = await env.run(TokenAdmin.createToken(admin, { name: "all" }))
    for (const { token } of [both, only, all]) await env.run(checkToken(token))
    env.clock.advance(1)
    await env.run(Platforms.deletePlatform(admin, "ios"))
    const scopes = Object.fromEntries(
      (await env.run(TokenAdmin.listTokens(admin))).map((record) => [record.name, record.platforms]),
    )
    expect(scopes).toEqual({ both: ["web"], only: [], all: null })
    const [deletion] = await env.run(env.store.listAudit({ limit: 1 }))
    expect(deletion).toMatchObject({
      action: "platform.delete",
      detail: { versions: [], tokens: [both.record.id, only.record.id].sort() },
    })
    await withPlatforms(env, ["ios"])
    // Each check reads the narrowed platforms at once, though the grants were cached before the deletion.
    expect(await env.run(checkToken(both.token))).toMatchObject({ platforms: ["web"] })
    expect(await env.run(checkToken(only.token))).toMatchObject({ platforms: [] })
    expect(await env.run(checkToken(all.token))).toMatchObject({ platforms: null })
  })

  it("still records the token's use while its platforms are read from the store", async () => {
    const env = environment()
    await withPlatforms(env, ["ios", "web"])
    const { token } = await env.run(TokenAdmin.createToken(admin, { name: "CI", platforms: ["ios", "web"] }))
    await env.run(checkToken(token))
    env.clock.advance(1)
    await env.run(Platforms.deletePlatform(admin, "ios"))
    // A period later, and well inside the time the narrowed grant is read from the store.
    env.clock.advance(LAST_USED_PERIOD_MS)
    expect(await env.run(checkToken(token))).toMatchObject({ platforms: ["web"] })
    expect((await env.run(TokenAdmin.listTokens(admin)))[0]?.lastUsedAt).toBe(T0 + 1 + LAST_USED_PERIOD_MS)
  })

  it("reaches every instance, even one that cached the old grant after the deletion dropped it", async () => {
    const env = environment()
    const other = env.instance()
    await withPlatforms(env, ["ios", "web"])
    const { token } = await env.run(TokenAdmin.createToken(admin, { name: "CI", platforms: ["ios", "web"] }))
    await other.run(checkToken(token))
    const hash = await env.run(Hasher.Hasher.use((hasher) => hasher.sha256Hex(token)))
    const cachedEntry = env.cache.entries.get(tokenCacheKey(hash))
    expect(cachedEntry).toBeDefined()
    await settle()
    await env.run(Platforms.deletePlatform(admin, "ios"))
    await settle()
    // The race: the other instance read the database before the deletion and writes its answer back late.
    env.cache.entries.set(tokenCacheKey(hash), cachedEntry!)
    expect(await other.run(checkToken(token))).toMatchObject({ platforms: ["web"] })
  })

  it("is refused, the token's platforms unchanged, when the cache cannot drop the token's grant", async () => {
    const env = environment()
    await withPlatforms(env, ["ios", "web"])
    const { token } = await env.run(TokenAdmin.createToken(admin, { name: "CI", platforms: ["ios"] }))
    // Only the grant's deletion fails: the rest of the deletion (the schema cache's generation) would succeed.
    const cache = env.cache.cache as { delete: typeof env.cache.cache.delete }
    const drop = cache.delete
    cache.delete = (key) =>
      key.startsWith("schemas:token:")
        ? Effect.fail(new StoreUnavailable({ store: "cache", message: "down" }))
        : drop(key)
    expect((await env.flip(Platforms.deletePlatform(admin, "ios")))._tag).toBe("StoreUnavailable")
    cache.delete = drop
    expect(await env.run(checkToken(token))).toMatchObject({ platforms: ["ios"] })
    expect((await env.run(TokenAdmin.listTokens(admin)))[0]?.platforms).toEqual(["ios"])
  })
})
