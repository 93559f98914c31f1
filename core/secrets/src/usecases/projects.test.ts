import { Cipher, MasterKeyCheck } from "@coffer/kernel"
import { type Actor, cipherLayer, failure, makeWorld, newMasterKey, type World } from "@coffer/test-kit/secrets"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { authenticateApiKey, createApiKey } from "./apiKeys.js"
import { listAuditLog } from "./audit.js"
import { createEnvironment } from "./environments.js"
import { acceptInvite, createInvite, updateMemberRole } from "./people.js"
import { createProject, deleteProject, getProject, listProjects } from "./projects.js"
import { getSecret, setSecret } from "./secrets.js"

let world: World
afterEach(() => world?.runtime.dispose())

describe("projects", () => {
  it("derives the slug, creates the three environments, makes the creator owner, and audits", async () => {
    world = makeWorld()
    const ada = world.person("ada@example.com")
    const { project } = await world.run(createProject(ada, { name: "  Zürich Payments!  " }))
    expect(project).toEqual({
      id: expect.any(String),
      name: "Zürich Payments!",
      slug: "zurich-payments",
      ownerId: ada.userId,
      createdAt: "2026-01-01T00:00:00.000Z",
      role: "owner",
    })
    expect(project).not.toHaveProperty("dataKey")
    const got = await world.run(getProject(ada, "zurich-payments"))
    expect(got.environments.map((environment) => environment.name)).toEqual(["development", "staging", "production"])
    expect(got.environments.every((environment) => environment.projectId === project.id)).toBe(true)
    const { auditLog } = await world.run(listAuditLog(ada, "zurich-payments", {}))
    expect(auditLog).toEqual([
      {
        id: expect.any(String),
        userId: ada.userId,
        userEmail: "ada@example.com",
        projectId: project.id,
        environmentId: null,
        action: "project.created",
        targetKey: "zurich-payments",
        ipAddress: "203.0.113.7",
        createdAt: "2026-01-01T00:00:00.000Z",
        apiKey: null,
      },
    ])
  })

  it("answers 409 when the slug is taken, whoever took it", async () => {
    world = makeWorld()
    const ada = world.person()
    const bob = world.person()
    await world.run(createProject(ada, { name: "Payments" }))
    const exit = await world.exit(createProject(bob, { name: "payments!" }))
    expect(failure(exit)).toMatchObject({ _tag: "ProjectExists" })
  })

  it("is refused, with nothing written, once the master key no longer opens the canary (a rotation moved on)", async () => {
    world = makeWorld()
    const ada = world.person()
    await world.run(MasterKeyCheck.atStart)
    await world.run(createProject(ada, { name: "Early" }))
    // `coffer keys rotate` on another machine re-wrapped the canary under a key this instance does not hold.
    const moved = await Effect.runPromise(
      Cipher.Cipher.use((cipher) => cipher.newDataKey).pipe(
        Effect.provide(cipherLayer({ current: newMasterKey(), previous: [] })),
      ),
    )
    const canary = await world.run(Effect.flatMap(MasterKeyCheck.KeyCanary, (canaries) => canaries.read))
    expect(
      await world.run(
        Effect.flatMap(MasterKeyCheck.KeyCanary, (canaries) => canaries.replace({ expected: canary!, next: moved })),
      ),
    ).toBe(true)
    expect(failure(await world.exit(createProject(ada, { name: "Late" })))).toMatchObject({
      _tag: "MasterKeyMismatch",
      message: expect.stringMatching(/^COFFER_MASTER_KEY does not open the data/),
    })
    const { projects } = await world.run(listProjects(ada))
    expect(projects.map((project) => project.slug)).toEqual(["early"])
  })

  it("refuses names without a letter or digit, and empty ones", async () => {
    world = makeWorld()
    const ada = world.person()
    for (const name of ["", "   ", "!!!", "秘密"]) {
      expect(failure(await world.exit(createProject(ada, { name })))).toMatchObject({ _tag: "InvalidName" })
    }
  })

  it("lists the projects one is in, with one's role; others' projects are 404", async () => {
    world = makeWorld()
    const ada = world.person()
    const bob = world.person()
    await world.run(createProject(ada, { name: "Alpha" }))
    await world.run(createProject(bob, { name: "Beta" }))
    expect((await world.run(listProjects(ada))).projects.map((p) => [p.slug, p.role])).toEqual([["alpha", "owner"]])
    expect(failure(await world.exit(getProject(ada, "beta")))).toEqual({
      _tag: "ProjectNotFound",
      message: "Project not found",
    })
    expect(failure(await world.exit(getProject(ada, "Not A Slug")))).toMatchObject({ _tag: "ProjectNotFound" })
  })

  it("is deleted by its owner only, with everything in it", async () => {
    world = makeWorld()
    const ada = world.person()
    await world.run(createProject(ada, { name: "Alpha" }))
    await world.run(setSecret(ada, "alpha", "development", { key: "A", value: "1" }))
    const created = await world.run(createApiKey(ada, { name: "ci", projectSlug: "alpha" }))
    const key = await world.run(authenticateApiKey(created.key, null))
    expect(failure(await world.exit(deleteProject(key, "alpha")))).toMatchObject({ _tag: "Forbidden" })
    expect(await world.run(deleteProject(ada, "alpha"))).toEqual({ ok: true })
    expect(failure(await world.exit(getProject(ada, "alpha")))).toMatchObject({ _tag: "ProjectNotFound" })
    expect(failure(await world.exit(authenticateApiKey(created.key, null)))).toMatchObject({ _tag: "Unauthorized" })
    // The slug is free again, and nothing of the old project shows through.
    await world.run(createProject(ada, { name: "Alpha" }))
    expect(failure(await world.exit(getSecret(ada, "alpha", "development", "A")))).toMatchObject({
      _tag: "SecretNotFound",
    })
    await world.run(createEnvironment(ada, "alpha", { name: "qa" }))
  })

  it("shows an API key its own project only, and refuses it creating projects", async () => {
    world = makeWorld()
    const ada = world.person()
    await world.run(createProject(ada, { name: "Alpha" }))
    await world.run(createProject(ada, { name: "Beta" }))
    const created = await world.run(createApiKey(ada, { name: "ci", projectSlug: "alpha" }))
    const key = await world.run(authenticateApiKey(created.key, null))
    expect((await world.run(listProjects(key))).projects.map((p) => p.slug)).toEqual(["alpha"])
    expect(failure(await world.exit(getProject(key, "beta")))).toMatchObject({ _tag: "ProjectNotFound" })
    expect(failure(await world.exit(createProject(key, { name: "Gamma" })))).toMatchObject({ _tag: "Forbidden" })
  })

  it("answers a key with the role it acts with: its scope, bounded by its holder's role, never owner", async () => {
    world = makeWorld()
    const ada = world.person()
    const bob = world.person()
    await world.run(createProject(ada, { name: "Alpha" }))
    const { token } = await world.run(createInvite(ada, "alpha", { role: "write", publicOrigin: "http://x" }))
    await world.run(acceptInvite(bob, token))
    const keyOf = async (holder: typeof ada, scope: "read" | "write") => {
      const created = await world.run(createApiKey(holder, { name: `${scope} key`, projectSlug: "alpha", scope }))
      return world.run(authenticateApiKey(created.key, null))
    }
    const roles = async (actor: Actor) => [
      (await world.run(listProjects(actor))).projects[0]?.role,
      (await world.run(getProject(actor, "alpha"))).project.role,
    ]
    expect(await roles(ada)).toEqual(["owner", "owner"])
    expect(await roles(await keyOf(ada, "write"))).toEqual(["write", "write"])
    expect(await roles(await keyOf(ada, "read"))).toEqual(["read", "read"])
    const bobsWriteKey = await keyOf(bob, "write")
    expect(await roles(bobsWriteKey)).toEqual(["write", "write"])
    // Its holder moved down to read: so does what the key does, and says.
    await world.run(updateMemberRole(ada, "alpha", bob.userId, "read"))
    expect(await roles(bobsWriteKey)).toEqual(["read", "read"])
  })
})
