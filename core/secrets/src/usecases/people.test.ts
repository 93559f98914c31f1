import { Hasher } from "@coffer/kernel"
import { failure, makeWorld, type World } from "@coffer/test-kit/secrets"
import { afterEach, describe, expect, it } from "vitest"
import { SecretStore } from "../SecretStore.js"
import { authenticateApiKey, createApiKey, listApiKeys } from "./apiKeys.js"
import { listAuditLog } from "./audit.js"
import {
  acceptInvite,
  createInvite,
  deleteInvite,
  INVITE_LIFETIME_MS,
  listInvites,
  listMembers,
  removeMember,
  updateMemberRole,
} from "./people.js"
import { createProject } from "./projects.js"
import { setSecret } from "./secrets.js"

let world: World
afterEach(() => world?.runtime.dispose())

const ORIGIN = "https://coffer.example"

const setup = async () => {
  world = makeWorld()
  const owner = world.person("owner@example.com")
  await world.run(createProject(owner, { name: "Alpha" }))
  const invite = (role: "read" | "write" = "read") =>
    world.run(createInvite(owner, "alpha", { role, publicOrigin: ORIGIN }))
  const join = async (email: string, role: "read" | "write" = "read") => {
    const person = world.person(email)
    await world.run(acceptInvite(person, (await invite(role)).token))
    return person
  }
  return { owner, invite, join }
}

describe("invites", () => {
  it("hands out a cfi_ token and its link once, storing only the token's SHA-256", async () => {
    const { invite } = await setup()
    const created = await invite("write")
    expect(created.token).toMatch(/^cfi_[A-Za-z0-9_-]{43}$/)
    expect(created.url).toBe(`${ORIGIN}/invite#${created.token}`)
    expect(created.invite).toEqual({
      id: expect.any(String),
      role: "write",
      createdAt: "2026-01-01T00:00:00.000Z",
      expiresAt: "2026-01-08T00:00:00.000Z",
    })
    const hash = await world.run(Hasher.Hasher.use((hasher) => hasher.sha256Hex(created.token)))
    const stored = await world.run(SecretStore.use((store) => store.findInvite(hash)))
    expect(stored).toMatchObject({ id: created.invite.id, tokenHash: hash })
    expect(JSON.stringify(stored)).not.toContain(created.token)
  })

  it("works once; is 404 when used, withdrawn, expired or unknown; 409 leaves it usable", async () => {
    const { owner, invite } = await setup()
    const ada = world.person("ada@example.com")
    const first = await invite("write")
    expect(failure(await world.exit(acceptInvite(owner, first.token)))).toMatchObject({ _tag: "AlreadyMember" })
    expect(await world.run(acceptInvite(ada, first.token))).toEqual({
      project: expect.objectContaining({ slug: "alpha", role: "write" }),
    })
    const bob = world.person()
    expect(failure(await world.exit(acceptInvite(bob, first.token)))).toMatchObject({ _tag: "InviteNotPending" })

    const withdrawn = await invite()
    await world.run(deleteInvite(owner, "alpha", withdrawn.invite.id))
    expect(failure(await world.exit(acceptInvite(bob, withdrawn.token)))).toMatchObject({ _tag: "InviteNotPending" })
    expect(failure(await world.exit(deleteInvite(owner, "alpha", withdrawn.invite.id)))).toMatchObject({
      _tag: "InviteNotFound",
    })

    const expiring = await invite()
    world.clock.advance(INVITE_LIFETIME_MS)
    expect(failure(await world.exit(acceptInvite(bob, expiring.token)))).toMatchObject({ _tag: "InviteNotPending" })
    expect((await world.run(listInvites(owner, "alpha"))).invites).toEqual([])
    for (const token of ["", "cfi_short", `cfk_${"a".repeat(43)}`, `cfi_${"a".repeat(43)}`]) {
      expect(failure(await world.exit(acceptInvite(bob, token)))).toMatchObject({ _tag: "InviteNotPending" })
    }
  })

  it("lists pending invites only, to the owner only; keys are refused", async () => {
    const { owner, invite, join } = await setup()
    const writer = await join("w@example.com", "write")
    await invite("read")
    world.clock.advance(1)
    await invite("write")
    expect((await world.run(listInvites(owner, "alpha"))).invites.map((i) => i.role)).toEqual(["write", "read"])
    expect(failure(await world.exit(listInvites(writer, "alpha")))).toMatchObject({ _tag: "Forbidden" })
    expect(
      failure(await world.exit(createInvite(writer, "alpha", { role: "read", publicOrigin: ORIGIN }))),
    ).toMatchObject({ _tag: "Forbidden" })
    const key = await world.run(createApiKey(owner, { name: "k", projectSlug: "alpha", scope: "write" }))
    const asKey = await world.run(authenticateApiKey(key.key, null))
    expect(failure(await world.exit(listInvites(asKey, "alpha")))).toMatchObject({ _tag: "Forbidden" })
    expect(failure(await world.exit(acceptInvite(asKey, (await invite()).token)))).toMatchObject({ _tag: "Forbidden" })
  })
})

describe("members", () => {
  it("lists the owner first, then members, with e-mails and roles", async () => {
    const { owner, join } = await setup()
    world.clock.advance(1)
    const ada = await join("ada@example.com", "write")
    world.clock.advance(1)
    await join("bob@example.com")
    expect((await world.run(listMembers(ada, "alpha"))).members).toEqual([
      { userId: owner.userId, email: "owner@example.com", role: "owner", createdAt: "2026-01-01T00:00:00.000Z" },
      { userId: ada.userId, email: "ada@example.com", role: "write", createdAt: "2026-01-01T00:00:00.001Z" },
      { userId: expect.any(String), email: "bob@example.com", role: "read", createdAt: "2026-01-01T00:00:00.002Z" },
    ])
  })

  it("changes roles (owner only), and a write key follows its holder's role at once", async () => {
    const { owner, join } = await setup()
    const ada = await join("ada@example.com", "write")
    const key = await world.run(createApiKey(ada, { name: "deploy", projectSlug: "alpha", scope: "write" }))
    const asKey = await world.run(authenticateApiKey(key.key, null))
    await world.run(setSecret(asKey, "alpha", "development", { key: "K", value: "1" }))
    expect(failure(await world.exit(updateMemberRole(ada, "alpha", ada.userId, "write")))).toMatchObject({
      _tag: "Forbidden",
    })
    expect(await world.run(updateMemberRole(owner, "alpha", ada.userId, "read"))).toEqual({ ok: true })
    expect(failure(await world.exit(setSecret(asKey, "alpha", "development", { key: "K", value: "2" })))).toMatchObject(
      { _tag: "Forbidden" },
    )
    expect(failure(await world.exit(updateMemberRole(owner, "alpha", owner.userId, "read")))).toMatchObject({
      _tag: "BadRequest",
    })
    expect(failure(await world.exit(updateMemberRole(owner, "alpha", "nobody", "read")))).toMatchObject({
      _tag: "MemberNotFound",
    })
    const { auditLog } = await world.run(listAuditLog(owner, "alpha", { limit: "1" }))
    expect(auditLog[0]).toMatchObject({ action: "member.updated", targetKey: "ada@example.com:read" })
  })

  it("removes people: the owner anyone, a member themselves; their keys for the project go too", async () => {
    const { owner, join } = await setup()
    const ada = await join("ada@example.com", "write")
    const bob = await join("bob@example.com", "write")
    const adaKey = await world.run(createApiKey(ada, { name: "a", projectSlug: "alpha" }))
    await world.run(createApiKey(bob, { name: "b", projectSlug: "alpha" }))
    expect(failure(await world.exit(removeMember(ada, "alpha", bob.userId)))).toMatchObject({ _tag: "Forbidden" })
    expect(failure(await world.exit(removeMember(owner, "alpha", owner.userId)))).toMatchObject({
      _tag: "BadRequest",
    })
    expect(await world.run(removeMember(owner, "alpha", ada.userId))).toEqual({ ok: true })
    expect(failure(await world.exit(authenticateApiKey(adaKey.key, null)))).toMatchObject({ _tag: "Unauthorized" })
    expect(await world.run(removeMember(bob, "alpha", bob.userId))).toEqual({ ok: true })
    expect((await world.run(listApiKeys(owner, "alpha"))).apiKeys).toEqual([])
    expect((await world.run(listMembers(owner, "alpha"))).members.map((m) => m.role)).toEqual(["owner"])
    expect(failure(await world.exit(listMembers(bob, "alpha")))).toMatchObject({ _tag: "ProjectNotFound" })
    // Each key that went with its holder is logged as deleted, by whoever removed the holder (seed 001 §2, §3).
    const { auditLog } = await world.run(listAuditLog(owner, "alpha", { limit: "4" }))
    expect(auditLog.map((entry) => [entry.action, entry.targetKey, entry.userEmail])).toEqual([
      ["api_key.deleted", "b", "bob@example.com"],
      ["member.removed", "bob@example.com", "bob@example.com"],
      ["api_key.deleted", "a", "owner@example.com"],
      ["member.removed", "ada@example.com", "owner@example.com"],
    ])
    const [adaKeyRecord, adaRemoval] = auditLog.slice(2)
    expect(adaKeyRecord).toMatchObject({
      projectId: adaRemoval?.projectId,
      environmentId: null,
      userId: owner.userId,
      ipAddress: adaRemoval?.ipAddress,
    })
  })
})
