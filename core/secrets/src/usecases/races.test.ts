/**
 * Two requests that change or remove the same thing at once: both reach it, one store call comes first, and the
 * other's finds nothing left (its store method answers false, or no invite). The one that comes second answers
 * 404 for the thing gone, as it would a moment later, whatever the store: on SQLite requests take turns, so the
 * second one's lookup already misses; on Postgres both lookups may see the thing before either removes it. The
 * interleaving is made here by letting the rival request run to its end just before the one under test reaches
 * the store, and the loser writes no audit record.
 */
import type { StoreUnavailable } from "@coffer/kernel"
import { failure, makeWorld, type World } from "@coffer/test-kit/secrets"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import type { AuditAction } from "../domain/audit.js"
import type * as SecretStore from "../SecretStore.js"
import { authenticateApiKey, createApiKey, deleteApiKey, rotateApiKey } from "./apiKeys.js"
import { createEnvironment, deleteEnvironment } from "./environments.js"
import { acceptInvite, createInvite, deleteInvite, removeMember, updateMemberRole } from "./people.js"
import { createProject, deleteProject } from "./projects.js"
import { deleteSecret, getSecret, restoreVersion, setSecret } from "./secrets.js"

type Store = SecretStore.SecretStore["Service"]
/** The store methods whose answer says whether they found what they change, and the write of a version. */
type Raced =
  | "deleteProject"
  | "deleteEnvironment"
  | "deleteSecret"
  | "deleteApiKey"
  | "rotateApiKey"
  | "removeMember"
  | "setMemberRole"
  | "deleteInvite"
  | "acceptInvite"
  | "writeSecret"
  | "createApiKey"
type Request = Parameters<World["run"]>[0]

let world: World
afterEach(() => world?.runtime.dispose())

/**
 * A world whose store, the first time `method` is called after `ahead(rival)`, lets `rival` run to its end before
 * doing what it was asked.
 */
const racedWorld = (method: Raced) => {
  let rival: Request | undefined
  const raced: World = makeWorld({
    store: (store) => {
      const own = store[method] as (input: never) => Effect.Effect<unknown, StoreUnavailable>
      const call = (input: never) => {
        const first = rival
        rival = undefined
        return first === undefined
          ? own(input)
          : Effect.andThen(
              Effect.promise(() => raced.run(first)),
              own(input),
            )
      }
      return { ...store, [method]: call } as Store
    },
  })
  world = raced
  return {
    ahead: (request: Request) => {
      rival = request
    },
  }
}

const ORIGIN = "https://coffer.example"

/** A project `alpha` of `owner`, with `member` (write) in it, an API key of the owner's and a secret `A`. */
const populated = async () => {
  const owner = world.person("owner@example.com")
  const member = world.person("member@example.com")
  const { project } = await world.run(createProject(owner, { name: "Alpha" }))
  const { token } = await world.run(createInvite(owner, "alpha", { role: "write", publicOrigin: ORIGIN }))
  await world.run(acceptInvite(member, token))
  const key = await world.run(createApiKey(owner, { name: "ci", projectSlug: "alpha" }))
  await world.run(setSecret(owner, "alpha", "development", { key: "A", value: "1" }))
  await world.run(createEnvironment(owner, "alpha", { name: "qa" }))
  return { owner, member, projectId: project.id, keyId: key.id }
}

/** How many records of `action` the project's log holds (read from the store: the project may be gone). */
const recorded = (projectId: string, action: AuditAction) =>
  world
    .run(world.store.listAudit({ projectId, filter: { actions: [action] }, limit: 500, offset: 0 }))
    .then((records) => records.length)

describe("a change that a concurrent request made first", () => {
  it("deleting a project: 404, one record", async () => {
    const { ahead } = racedWorld("deleteProject")
    const { owner, projectId } = await populated()
    ahead(deleteProject(owner, "alpha"))
    expect(failure(await world.exit(deleteProject(owner, "alpha")))).toEqual({
      _tag: "ProjectNotFound",
      message: "Project not found",
    })
    expect(await recorded(projectId, "project.deleted")).toBe(1)
  })

  it("deleting an environment: 404, one record", async () => {
    const { ahead } = racedWorld("deleteEnvironment")
    const { owner, member, projectId } = await populated()
    ahead(deleteEnvironment(member, "alpha", "qa"))
    expect(failure(await world.exit(deleteEnvironment(owner, "alpha", "qa")))).toMatchObject({
      _tag: "EnvironmentNotFound",
    })
    expect(await recorded(projectId, "environment.deleted")).toBe(1)
  })

  it("deleting a secret: 404, one record", async () => {
    const { ahead } = racedWorld("deleteSecret")
    const { owner, member, projectId } = await populated()
    ahead(deleteSecret(member, "alpha", "development", "A"))
    expect(failure(await world.exit(deleteSecret(owner, "alpha", "development", "A")))).toMatchObject({
      _tag: "SecretNotFound",
    })
    expect(await recorded(projectId, "secret.deleted")).toBe(1)
  })

  it("deleting a secret at the version read that another request saved, re-created or deleted: 409 or 404", async () => {
    const A = ["alpha", "development", "A"] as const
    const cases = [
      {
        rival: (member: ReturnType<World["person"]>) =>
          setSecret(member, "alpha", "development", { key: "A", value: "2" }),
        refusal: { _tag: "SecretChangedMeanwhile", message: "A is at version 2, not 1: it changed since it was read" },
        value: "2",
        records: 0,
      },
      {
        // At version 1 again, but another secret: the one read is gone, and this one is not taken unseen.
        rival: (member: ReturnType<World["person"]>) =>
          Effect.andThen(
            deleteSecret(member, ...A),
            setSecret(member, "alpha", "development", { key: "A", value: "new" }),
          ),
        refusal: {
          _tag: "SecretChangedMeanwhile",
          message: "A was deleted and created again since it was read (it is at version 1 anew)",
        },
        value: "new",
        records: 1,
      },
      {
        rival: (member: ReturnType<World["person"]>) => deleteSecret(member, ...A),
        refusal: { _tag: "SecretNotFound", message: "Secret not found" },
        value: undefined,
        records: 1,
      },
    ]
    for (const { rival, refusal, value, records } of cases) {
      const { ahead } = racedWorld("deleteSecret")
      const { owner, member, projectId } = await populated()
      ahead(rival(member))
      expect(failure(await world.exit(deleteSecret(owner, ...A, "1")))).toEqual(refusal)
      const left = await world.exit(getSecret(owner, ...A))
      expect(left._tag === "Success" ? left.value.secret.value : undefined).toBe(value)
      expect(await recorded(projectId, "secret.deleted")).toBe(records)
      await world.runtime.dispose()
    }
  })

  it("deleting or rotating an API key another request deleted: 404, one record", async () => {
    const deleting = racedWorld("deleteApiKey")
    let { owner, keyId, projectId } = await populated()
    deleting.ahead(deleteApiKey(owner, keyId))
    expect(failure(await world.exit(deleteApiKey(owner, keyId)))).toMatchObject({ _tag: "ApiKeyNotFound" })
    expect(await recorded(projectId, "api_key.deleted")).toBe(1)
    await world.runtime.dispose()

    const rotating = racedWorld("rotateApiKey")
    ;({ owner, keyId, projectId } = await populated())
    rotating.ahead(deleteApiKey(owner, keyId))
    expect(failure(await world.exit(rotateApiKey(owner, keyId, {})))).toMatchObject({ _tag: "ApiKeyNotFound" })
    expect(await recorded(projectId, "api_key.rotated")).toBe(0)
  })

  it("restoring a version of a secret another request deleted: 404, nothing brought back, no record", async () => {
    const { ahead } = racedWorld("writeSecret")
    const { owner, member, projectId } = await populated()
    await world.run(setSecret(owner, "alpha", "development", { key: "A", value: "2" }))
    ahead(deleteSecret(member, "alpha", "development", "A"))
    expect(failure(await world.exit(restoreVersion(owner, "alpha", "development", "A", "1")))).toMatchObject({
      _tag: "SecretNotFound",
    })
    expect(failure(await world.exit(getSecret(owner, "alpha", "development", "A")))).toMatchObject({
      _tag: "SecretNotFound",
    })
    expect(await recorded(projectId, "secret.restored")).toBe(0)
  })

  it("restoring a version while another request updates the secret: both land, the restore on top", async () => {
    const { ahead } = racedWorld("writeSecret")
    const { owner, member } = await populated()
    await world.run(setSecret(owner, "alpha", "development", { key: "A", value: "2" }))
    ahead(setSecret(member, "alpha", "development", { key: "A", value: "3" }))
    expect(await world.run(restoreVersion(owner, "alpha", "development", "A", "1"))).toEqual({
      ok: true,
      action: "restored",
      version: 4,
    })
    expect((await world.run(getSecret(owner, "alpha", "development", "A"))).secret).toMatchObject({
      value: "1",
      version: 4,
    })
  })

  it("writing on an expected version another request moved on: 409 with the version now, the other's value kept", async () => {
    const { ahead } = racedWorld("writeSecret")
    const { owner, member, projectId } = await populated()
    // Both read version 1; the rival's write lands first, so this one's store write loses and its retry re-reads.
    ahead(setSecret(member, "alpha", "development", { key: "A", value: "theirs", expectedVersion: 1 }))
    expect(
      failure(
        await world.exit(setSecret(owner, "alpha", "development", { key: "A", value: "mine", expectedVersion: 1 })),
      ),
    ).toEqual({ _tag: "SecretChangedMeanwhile", message: "A is at version 2, not 1: it changed since it was read" })
    expect((await world.run(getSecret(owner, "alpha", "development", "A"))).secret).toMatchObject({
      value: "theirs",
      version: 2,
    })
    expect(await recorded(projectId, "secret.updated")).toBe(1)

    // A key another request created first, where this one expected none.
    ahead(setSecret(member, "alpha", "development", { key: "B", value: "theirs", expectedVersion: 0 }))
    expect(
      failure(
        await world.exit(setSecret(owner, "alpha", "development", { key: "B", value: "mine", expectedVersion: 0 })),
      ),
    ).toEqual({ _tag: "SecretChangedMeanwhile", message: "B exists already (version 1): it was expected not to exist" })
    expect((await world.run(getSecret(owner, "alpha", "development", "B"))).secret.value).toBe("theirs")
  })

  it("rotating an API key another request rotated: 409, the other's value the one that works, one record", async () => {
    const { ahead } = racedWorld("rotateApiKey")
    const { owner, keyId, projectId } = await populated()
    let winner: string | undefined
    ahead(
      Effect.map(rotateApiKey(owner, keyId, {}), (rotated) => {
        winner = rotated.key
      }),
    )
    expect(failure(await world.exit(rotateApiKey(owner, keyId, {})))).toEqual({
      _tag: "ApiKeyRotatedMeanwhile",
      message:
        "Another request rotated this API key at the same time and received the one value that works (the key list " +
        "shows its prefix); rotate again for a new value",
    })
    expect(winner).toBeDefined()
    expect(await world.run(authenticateApiKey(winner!, null))).toMatchObject({ kind: "apiKey", keyId })
    expect(await recorded(projectId, "api_key.rotated")).toBe(1)
  })

  it("removing a member, or changing the role of one another request removed: 404, one record", async () => {
    const removing = racedWorld("removeMember")
    let { owner, member, projectId } = await populated()
    removing.ahead(removeMember(member, "alpha", member.userId))
    expect(failure(await world.exit(removeMember(owner, "alpha", member.userId)))).toMatchObject({
      _tag: "MemberNotFound",
    })
    expect(await recorded(projectId, "member.removed")).toBe(1)
    await world.runtime.dispose()

    const changing = racedWorld("setMemberRole")
    ;({ owner, member, projectId } = await populated())
    changing.ahead(removeMember(member, "alpha", member.userId))
    expect(failure(await world.exit(updateMemberRole(owner, "alpha", member.userId, "read")))).toMatchObject({
      _tag: "MemberNotFound",
    })
    expect(await recorded(projectId, "member.updated")).toBe(0)
  })

  it("a write that loses to another while its writer is removed or moved down to read: refused at its retry", async () => {
    const { ahead } = racedWorld("writeSecret")
    const { owner, member, projectId } = await populated()
    // Both read version 1; the owner's write lands first, then the member is removed, all before the member's write
    // reaches the store: it loses, and its retry must not store a version once the removal has answered.
    ahead(
      Effect.andThen(
        setSecret(owner, "alpha", "development", { key: "A", value: "owner's" }),
        removeMember(owner, "alpha", member.userId),
      ),
    )
    expect(failure(await world.exit(setSecret(member, "alpha", "development", { key: "A", value: "late" })))).toEqual({
      _tag: "ProjectNotFound",
      message: "Project not found",
    })
    expect((await world.run(getSecret(owner, "alpha", "development", "A"))).secret).toMatchObject({
      value: "owner's",
      version: 2,
    })
    expect(await recorded(projectId, "secret.updated")).toBe(1)

    // Moved down to read instead: 403, nothing stored.
    const { token } = await world.run(createInvite(owner, "alpha", { role: "write", publicOrigin: ORIGIN }))
    await world.run(acceptInvite(member, token))
    ahead(
      Effect.andThen(
        setSecret(owner, "alpha", "development", { key: "A", value: "owner's again" }),
        updateMemberRole(owner, "alpha", member.userId, "read"),
      ),
    )
    expect(failure(await world.exit(setSecret(member, "alpha", "development", { key: "A", value: "late" })))).toEqual({
      _tag: "Forbidden",
      message: "Read access only: you may not change secrets or environments in this project",
    })
    expect((await world.run(getSecret(owner, "alpha", "development", "A"))).secret).toMatchObject({
      value: "owner's again",
      version: 3,
    })
    expect(await recorded(projectId, "secret.updated")).toBe(2)
  })

  it("creating an API key while another request removes its holder: 404, no key outlives the membership", async () => {
    const { ahead } = racedWorld("createApiKey")
    const { owner, member, projectId } = await populated()
    ahead(removeMember(owner, "alpha", member.userId))
    expect(failure(await world.exit(createApiKey(member, { name: "late", projectSlug: "alpha" })))).toEqual({
      _tag: "ProjectNotFound",
      message: "Project not found",
    })
    // Invited back, they hold no key made while they were being removed, which would have come back to life.
    const { token } = await world.run(createInvite(owner, "alpha", { role: "write", publicOrigin: ORIGIN }))
    await world.run(acceptInvite(member, token))
    const keys = await world.run(world.store.listApiKeys([projectId]))
    expect(keys.filter((key) => key.userId === member.userId)).toEqual([])
    // Only `populated`'s key of the owner's.
    expect(await recorded(projectId, "api_key.created")).toBe(1)
  })

  it("withdrawing an invite withdrawn or accepted meanwhile, or accepting one accepted meanwhile: 404", async () => {
    for (const rival of ["withdrawn", "accepted"] as const) {
      const { ahead } = racedWorld("deleteInvite")
      const { owner, projectId } = await populated()
      const { invite, token } = await world.run(createInvite(owner, "alpha", { role: "read", publicOrigin: ORIGIN }))
      ahead(rival === "withdrawn" ? deleteInvite(owner, "alpha", invite.id) : acceptInvite(world.person(), token))
      expect(failure(await world.exit(deleteInvite(owner, "alpha", invite.id)))).toMatchObject({
        _tag: "InviteNotFound",
      })
      expect(await recorded(projectId, "invite.deleted")).toBe(rival === "withdrawn" ? 1 : 0)
      await world.runtime.dispose()
    }

    const { ahead } = racedWorld("acceptInvite")
    const { owner, projectId } = await populated()
    const { token } = await world.run(createInvite(owner, "alpha", { role: "read", publicOrigin: ORIGIN }))
    ahead(acceptInvite(world.person(), token))
    expect(failure(await world.exit(acceptInvite(world.person(), token)))).toMatchObject({
      _tag: "InviteNotPending",
    })
    // The invite's own acceptance, and the one of `populated`'s member.
    expect(await recorded(projectId, "member.joined")).toBe(2)
  })
})
