import { failure, makeWorld, type World } from "@coffer/test-kit/secrets"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { renewingKeyChecks } from "./apiKeyChecks.js"
import { apiKeyIdentity, authenticateApiKey, createApiKey, deleteApiKey, listApiKeys, rotateApiKey } from "./apiKeys.js"
import { listAuditLog } from "./audit.js"
import { acceptInvite, createInvite, updateMemberRole } from "./people.js"
import { createProject } from "./projects.js"
import { getSecret, setSecret } from "./secrets.js"

let world: World
afterEach(() => world?.runtime.dispose())

const DAY = 24 * 60 * 60 * 1000

const setup = async () => {
  world = makeWorld()
  const owner = world.person("owner@example.com")
  await world.run(createProject(owner, { name: "Alpha" }))
  await world.run(createProject(owner, { name: "Beta" }))
  const join = async (email: string, role: "read" | "write") => {
    const person = world.person(email)
    const { token } = await world.run(createInvite(owner, "alpha", { role, publicOrigin: "http://x" }))
    await world.run(acceptInvite(person, token))
    return person
  }
  return { owner, join }
}

describe("API keys", () => {
  it("creates a cfk_ key shown once, read scope by default, no expiry by default, audited", async () => {
    const { owner } = await setup()
    const created = await world.run(createApiKey(owner, { name: " ci ", projectSlug: "alpha" }))
    expect(created).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^cfk_[A-Za-z0-9_-]{43}$/),
      prefix: created.key.slice(0, 12),
      name: "ci",
      scope: "read",
      expiresAt: null,
    })
    const { apiKeys } = await world.run(listApiKeys(owner))
    expect(apiKeys).toEqual([
      {
        id: created.id,
        name: "ci",
        keyPrefix: created.prefix,
        scope: "read",
        projectId: expect.any(String),
        userId: owner.userId,
        userEmail: "owner@example.com",
        lastUsedAt: null,
        expiresAt: null,
        createdAt: "2026-01-01T00:00:00.000Z",
      },
    ])
    expect(JSON.stringify(apiKeys)).not.toContain(created.key)
    expect((await world.run(listAuditLog(owner, "alpha", { limit: "1" }))).auditLog[0]).toMatchObject({
      action: "api_key.created",
      targetKey: "ci",
    })
  })

  it("checks expiresInDays (1 to 3650) and the name", async () => {
    const { owner } = await setup()
    for (const expiresInDays of [0, 3651, 1.5, -1, Number.NaN]) {
      const exit = await world.exit(createApiKey(owner, { name: "k", projectSlug: "alpha", expiresInDays }))
      expect(failure(exit)).toMatchObject({ _tag: "BadRequest" })
    }
    for (const name of ["", "   ", "a\u0000b", "n".repeat(101)]) {
      expect(failure(await world.exit(createApiKey(owner, { name, projectSlug: "alpha" })))).toMatchObject({
        _tag: "BadRequest",
      })
    }
    const edge = await world.run(createApiKey(owner, { name: "k", projectSlug: "alpha", expiresInDays: 3650 }))
    expect(edge.expiresAt).toBe(new Date(Date.parse("2026-01-01T00:00:00.000Z") + 3650 * DAY).toISOString())
  })

  it("lets read members create read keys only; keys never reach another project", async () => {
    const { owner, join } = await setup()
    const reader = await join("reader@example.com", "read")
    const exit = await world.exit(createApiKey(reader, { name: "k", projectSlug: "alpha", scope: "write" }))
    expect(failure(exit)).toEqual({ _tag: "Forbidden", message: "Read members can create only read keys" })
    const readKey = await world.run(createApiKey(reader, { name: "k", projectSlug: "alpha" }))
    const asKey = await world.run(authenticateApiKey(readKey.key, null))
    expect(failure(await world.exit(setSecret(asKey, "alpha", "development", { key: "K", value: "v" })))).toMatchObject(
      { _tag: "Forbidden" },
    )
    expect(failure(await world.exit(createApiKey(reader, { name: "k", projectSlug: "beta" })))).toMatchObject({
      _tag: "ProjectNotFound",
    })
    const ownerKey = await world.run(createApiKey(owner, { name: "k", projectSlug: "alpha", scope: "write" }))
    const asOwnerKey = await world.run(authenticateApiKey(ownerKey.key, null))
    expect(
      failure(await world.exit(setSecret(asOwnerKey, "beta", "development", { key: "K", value: "v" }))),
    ).toMatchObject({ _tag: "ProjectNotFound" })
    expect(failure(await world.exit(createApiKey(asOwnerKey, { name: "k", projectSlug: "alpha" })))).toMatchObject({
      _tag: "Forbidden",
    })
  })

  it("answers 401 for unknown keys and 'API key has expired' once expired", async () => {
    const { owner } = await setup()
    const created = await world.run(createApiKey(owner, { name: "k", projectSlug: "alpha", expiresInDays: 1 }))
    await world.run(authenticateApiKey(created.key, null))
    world.clock.advance(DAY)
    expect(failure(await world.exit(authenticateApiKey(created.key, null)))).toEqual({
      _tag: "Unauthorized",
      message: "API key has expired",
    })
    expect(failure(await world.exit(authenticateApiKey(`cfk_${"A".repeat(43)}`, null)))).toEqual({
      _tag: "Unauthorized",
      message: "Invalid API key",
    })
    expect(failure(await world.exit(authenticateApiKey("Bearer nonsense", null)))).toMatchObject({
      _tag: "Unauthorized",
    })
  })

  it("acts with its holder's e-mail as the key checks' generation last found it, and stops when the holder's account is gone (401)", async () => {
    const { owner } = await setup()
    const created = await world.run(createApiKey(owner, { name: "k", projectSlug: "alpha" }))
    expect((await world.run(authenticateApiKey(created.key, null))).email).toBe("owner@example.com")
    const holder = world.users.get(owner.userId)!
    world.users.set(owner.userId, { ...holder, email: "renamed@example.com" })
    // A sign-in that changes the address renews the generation (`signIn`); the next use acts with the new one.
    await world.run(renewingKeyChecks(Effect.void))
    expect((await world.run(authenticateApiKey(created.key, null))).email).toBe("renamed@example.com")
    world.users.delete(owner.userId)
    await world.run(renewingKeyChecks(Effect.void))
    expect(failure(await world.exit(authenticateApiKey(created.key, null)))).toEqual({
      _tag: "Unauthorized",
      message: "Invalid API key",
    })
  })

  it("records lastUsedAt at most once a minute", async () => {
    const { owner } = await setup()
    const created = await world.run(createApiKey(owner, { name: "k", projectSlug: "alpha" }))
    const lastUsed = async () => (await world.run(listApiKeys(owner))).apiKeys[0]!.lastUsedAt
    world.clock.advance(1000)
    await world.run(authenticateApiKey(created.key, null))
    expect(await lastUsed()).toBe("2026-01-01T00:00:01.000Z")
    world.clock.advance(30_000)
    await world.run(authenticateApiKey(created.key, null))
    expect(await lastUsed()).toBe("2026-01-01T00:00:01.000Z")
    world.clock.advance(30_000)
    await world.run(authenticateApiKey(created.key, null))
    expect(await lastUsed()).toBe("2026-01-01T00:01:01.000Z")
  })

  it("rotates own keys only: new value, old one dead, expiry kept unless given", async () => {
    const { owner, join } = await setup()
    const writer = await join("w@example.com", "write")
    const created = await world.run(createApiKey(writer, { name: "k", projectSlug: "alpha", expiresInDays: 10 }))
    expect(failure(await world.exit(rotateApiKey(owner, created.id, {})))).toMatchObject({ _tag: "Forbidden" })
    world.clock.advance(DAY)
    const rotated = await world.run(rotateApiKey(writer, created.id, {}))
    expect(rotated).toMatchObject({ id: created.id, name: "k", scope: "read", expiresAt: created.expiresAt })
    expect(rotated.key).not.toBe(created.key)
    expect(failure(await world.exit(authenticateApiKey(created.key, null)))).toMatchObject({ _tag: "Unauthorized" })
    await world.run(authenticateApiKey(rotated.key, null))
    const longer = await world.run(rotateApiKey(writer, created.id, { expiresInDays: 30 }))
    expect(longer.expiresAt).toBe(new Date(Date.parse("2026-01-02T00:00:00.000Z") + 30 * DAY).toISOString())
    const stranger = world.person()
    expect(failure(await world.exit(rotateApiKey(stranger, created.id, {})))).toMatchObject({ _tag: "ApiKeyNotFound" })
  })

  it("does not rotate a write key once its holder is a read member: 403, and the old value still works", async () => {
    const { owner, join } = await setup()
    const writer = await join("w@example.com", "write")
    const created = await world.run(createApiKey(writer, { name: "k", projectSlug: "alpha", scope: "write" }))
    await world.run(updateMemberRole(owner, "alpha", writer.userId, "read"))
    const refused = failure(await world.exit(rotateApiKey(writer, created.id, {})))
    expect(refused).toEqual({
      _tag: "Forbidden",
      message: "Read members can hold only read keys: delete this write key and create a read key instead",
    })
    expect((await world.run(authenticateApiKey(created.key, null))).scope).toBe("write")
    const readKey = await world.run(createApiKey(writer, { name: "r", projectSlug: "alpha" }))
    expect((await world.run(rotateApiKey(writer, readKey.id, {}))).scope).toBe("read")
    await world.run(updateMemberRole(owner, "alpha", writer.userId, "write"))
    expect((await world.run(rotateApiKey(writer, created.id, {}))).scope).toBe("write")
  })

  it("tells what a key is and its holder's current role, which a demotion lowers under the key's scope", async () => {
    const { owner, join } = await setup()
    const writer = await join("w@example.com", "write")
    const created = await world.run(
      createApiKey(writer, { name: "k", projectSlug: "alpha", scope: "write", expiresInDays: 2 }),
    )
    const identity = async () => world.run(apiKeyIdentity(await world.run(authenticateApiKey(created.key, null))))
    expect(await identity()).toEqual({
      id: created.id,
      scope: "write",
      holderRole: "write",
      expiresAt: "2026-01-03T00:00:00.000Z",
      project: { id: expect.any(String), slug: "alpha", name: "Alpha" },
    })
    await world.run(updateMemberRole(owner, "alpha", writer.userId, "read"))
    expect(await identity()).toMatchObject({ scope: "write", holderRole: "read" })
    const ownerKey = await world.run(createApiKey(owner, { name: "o", projectSlug: "alpha" }))
    expect(await world.run(apiKeyIdentity(await world.run(authenticateApiKey(ownerKey.key, null))))).toMatchObject({
      scope: "read",
      holderRole: "owner",
    })
  })

  it("rotates an expired key only into a new lifetime: without one it is 400 and nothing changes", async () => {
    const { owner } = await setup()
    const created = await world.run(createApiKey(owner, { name: "k", projectSlug: "alpha", expiresInDays: 1 }))
    world.clock.advance(DAY)
    const refused = failure(await world.exit(rotateApiKey(owner, created.id, {})))
    expect(refused).toMatchObject({ _tag: "BadRequest", message: expect.stringMatching(/expired at .*expiresInDays/) })
    expect((await world.run(listApiKeys(owner))).apiKeys[0]).toMatchObject({ expiresAt: created.expiresAt })
    const renewed = await world.run(rotateApiKey(owner, created.id, { expiresInDays: 7 }))
    expect(Date.parse(renewed.expiresAt!)).toBe(Date.parse(created.expiresAt!) + 7 * DAY)
    await world.run(authenticateApiKey(renewed.key, null))
  })

  it("is deleted by its holder or the project's owner, and stops at once", async () => {
    const { owner, join } = await setup()
    const writer = await join("w@example.com", "write")
    const reader = await join("r@example.com", "read")
    const first = await world.run(createApiKey(writer, { name: "one", projectSlug: "alpha" }))
    const second = await world.run(createApiKey(writer, { name: "two", projectSlug: "alpha" }))
    expect((await world.run(listApiKeys(reader))).apiKeys).toEqual([])
    expect((await world.run(listApiKeys(owner, "alpha"))).apiKeys.map((k) => k.name).sort()).toEqual(["one", "two"])
    expect(failure(await world.exit(deleteApiKey(reader, first.id)))).toMatchObject({ _tag: "ApiKeyNotFound" })
    await world.run(deleteApiKey(owner, first.id))
    await world.run(deleteApiKey(writer, second.id))
    expect(failure(await world.exit(authenticateApiKey(first.key, null)))).toMatchObject({ _tag: "Unauthorized" })
    expect(failure(await world.exit(authenticateApiKey(second.key, null)))).toMatchObject({ _tag: "Unauthorized" })
    expect(failure(await world.exit(listApiKeys(reader, "beta")))).toMatchObject({ _tag: "ProjectNotFound" })
  })

  it("reads secrets of its project as its holder", async () => {
    const { owner } = await setup()
    await world.run(setSecret(owner, "alpha", "development", { key: "K", value: "v" }))
    const created = await world.run(createApiKey(owner, { name: "k", projectSlug: "alpha" }))
    const asKey = await world.run(authenticateApiKey(created.key, null))
    expect((await world.run(getSecret(asKey, "alpha", "development", "K"))).secret.value).toBe("v")
  })

  it("reads nothing of another project its holder owns: 404, and no read recorded there", async () => {
    const { owner } = await setup()
    await world.run(setSecret(owner, "beta", "development", { key: "K", value: "beta's" }))
    const created = await world.run(createApiKey(owner, { name: "k", projectSlug: "alpha" }))
    const asKey = await world.run(authenticateApiKey(created.key, null))
    expect(failure(await world.exit(getSecret(asKey, "beta", "development", "K")))).toMatchObject({
      _tag: "ProjectNotFound",
    })
    const betaLog = await world.run(listAuditLog(owner, "beta", {}))
    expect(betaLog.auditLog.map((entry) => entry.action)).not.toContain("secret.read")
    // The same read as the holder, signed in, is recorded: the check above would see a record if one were written.
    await world.run(getSecret(owner, "beta", "development", "K"))
    expect((await world.run(listAuditLog(owner, "beta", {}))).auditLog.map((entry) => entry.action)).toContain(
      "secret.read",
    )
  })
})
