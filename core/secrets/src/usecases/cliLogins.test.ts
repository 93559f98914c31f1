import { failure, makeWorld, type World } from "@coffer/test-kit/secrets"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { authenticateApiKey, listApiKeys } from "./apiKeys.js"
import { listAuditLog } from "./audit.js"
import {
  approveCliLogin,
  denyCliLogin,
  getCliLogin,
  normalizeUserCode,
  pollCliLogin,
  startCliLogin,
} from "./cliLogins.js"
import { acceptInvite, createInvite } from "./people.js"
import { createProject } from "./projects.js"

let world: World
afterEach(() => world?.runtime.dispose())

const setup = async () => {
  world = makeWorld()
  const owner = world.person("owner@example.com")
  await world.run(createProject(owner, { name: "Alpha" }))
  const reader = world.person("reader@example.com")
  const { token } = await world.run(createInvite(owner, "alpha", { role: "read", publicOrigin: "http://x" }))
  await world.run(acceptInvite(reader, token))
  const login = await world.run(startCliLogin({ name: "laptop", publicOrigin: "https://coffer.example" }))
  return { owner, reader, login }
}

/** A poll's key as `{ success }`, or its error as `{ _tag, code }`. */
const poll = (deviceCode: string) =>
  world.run(
    Effect.match(pollCliLogin(deviceCode), {
      onSuccess: (success) => ({ success }),
      onFailure: (error) => ({ _tag: error._tag, code: "code" in error ? error.code : undefined }),
    }),
  )
const refusal = (code: string) => ({ _tag: "CliLoginRefused", code })
const pollAfterInterval = (deviceCode: string) => {
  world.clock.advance(2000)
  return poll(deviceCode)
}

describe("command-line logins", () => {
  it("answers codes once and keeps only their hashes", async () => {
    const { login } = await setup()
    expect(login).toEqual({
      deviceCode: expect.stringMatching(/^cfd_[A-Za-z0-9_-]{43}$/),
      userCode: expect.stringMatching(/^[BCDFGHJKMNPQRSTVWXZ]{4}-[BCDFGHJKMNPQRSTVWXZ]{4}$/),
      verificationUrl: `https://coffer.example/cli-login?code=${login.userCode}`,
      expiresIn: 600,
      interval: 2,
    })
    const stored = JSON.stringify([...world.cache.entries])
    expect(stored).not.toContain(login.deviceCode)
    expect(stored).not.toContain(login.userCode)
    expect(normalizeUserCode(login.userCode.toLowerCase().replace("-", " "))).toBe(login.userCode)
  })

  it("is pending until approved, then hands a key created as the approver exactly once, audited", async () => {
    const { owner, login } = await setup()
    expect(await poll(login.deviceCode)).toMatchObject(refusal("authorization_pending"))
    expect(await world.run(getCliLogin(owner, login.userCode))).toEqual({
      name: "laptop",
      createdAt: "2026-01-01T00:00:00.000Z",
      expiresAt: "2026-01-01T00:10:00.000Z",
    })
    await world.run(approveCliLogin(owner, login.userCode, { projectSlug: "alpha", scope: "write" }))
    expect(JSON.stringify([...world.cache.entries])).not.toContain("cfk_")
    const got = (await pollAfterInterval(login.deviceCode)) as { success: { key: string } }
    expect(got.success).toMatchObject({ name: "laptop", scope: "write", projectSlug: "alpha", expiresAt: null })
    const actor = await world.run(authenticateApiKey(got.success.key, null))
    expect(actor).toMatchObject({ userId: owner.userId, scope: "write" })
    expect((await world.run(listApiKeys(owner))).apiKeys).toHaveLength(1)
    expect((await world.run(listAuditLog(owner, "alpha", { limit: "1" }))).auditLog[0]).toMatchObject({
      action: "api_key.created",
      targetKey: "laptop",
      userId: owner.userId,
    })
    expect(await pollAfterInterval(login.deviceCode)).toMatchObject(refusal("expired_token"))
    expect(failure(await world.exit(getCliLogin(owner, login.userCode)))).toMatchObject({ _tag: "CliLoginNotFound" })
  })

  it("answers slow_down to a poll within the interval", async () => {
    const { login } = await setup()
    expect(await poll(login.deviceCode)).toMatchObject(refusal("authorization_pending"))
    world.clock.advance(1000)
    expect(await poll(login.deviceCode)).toMatchObject(refusal("slow_down"))
    world.clock.advance(1000)
    expect(await poll(login.deviceCode)).toMatchObject(refusal("authorization_pending"))
  })

  it("hands the key to one of many concurrent polls in one instance", async () => {
    const { owner, login } = await setup()
    await world.run(approveCliLogin(owner, login.userCode, { projectSlug: "alpha" }))
    const polls = await world.run(
      Effect.all(
        Array.from({ length: 8 }, () => Effect.result(pollCliLogin(login.deviceCode))),
        { concurrency: "unbounded" },
      ),
    )
    expect(polls.filter((result) => result._tag === "Success")).toHaveLength(1)
    expect((await world.run(listApiKeys(owner))).apiKeys).toHaveLength(1)
  })

  it("hands the key out once even to a poll that read the login before the first claimer removed it", async () => {
    const { owner, login } = await setup()
    await world.run(approveCliLogin(owner, login.userCode, { projectSlug: "alpha" }))
    // Another instance's poll that read the approved login just before this one removed it: the entry is put back,
    // so only the shared claim counter stands between that poll and a second key.
    const [entryKey, entry] = [...world.cache.entries].find(([key]) => key.startsWith("secrets:cli-login:"))!
    expect(await poll(login.deviceCode)).toHaveProperty("success")
    world.cache.entries.set(entryKey, entry)
    expect(await poll(login.deviceCode)).toMatchObject(refusal("expired_token"))
    expect((await world.run(listApiKeys(owner))).apiKeys).toHaveLength(1)
  })

  it("denied: the poll says so and the code is gone", async () => {
    const { owner, login } = await setup()
    await world.run(denyCliLogin(owner, login.userCode))
    expect(await pollAfterInterval(login.deviceCode)).toMatchObject(refusal("access_denied"))
    expect(failure(await world.exit(approveCliLogin(owner, login.userCode, { projectSlug: "alpha" })))).toMatchObject({
      _tag: "CliLoginNotFound",
    })
    expect((await world.run(listApiKeys(owner))).apiKeys).toHaveLength(0)
  })

  it("expires after ten minutes", async () => {
    const { owner, login } = await setup()
    world.clock.advance(600_000)
    expect(await poll(login.deviceCode)).toMatchObject(refusal("expired_token"))
    expect(failure(await world.exit(getCliLogin(owner, login.userCode)))).toMatchObject({ _tag: "CliLoginNotFound" })
  })

  it("refuses what POST /api/api-keys refuses: a read member's write key, a project out of reach", async () => {
    const { reader, login } = await setup()
    expect(
      failure(await world.exit(approveCliLogin(reader, login.userCode, { projectSlug: "alpha", scope: "write" }))),
    ).toMatchObject({ _tag: "Forbidden" })
    const stranger = world.person("stranger@example.com")
    expect(
      failure(await world.exit(approveCliLogin(stranger, login.userCode, { projectSlug: "alpha" }))),
    ).toMatchObject({ _tag: "ProjectNotFound" })
    expect(await poll(login.deviceCode)).toMatchObject(refusal("authorization_pending"))
    await world.run(approveCliLogin(reader, login.userCode, { projectSlug: "alpha" }))
    const got = (await pollAfterInterval(login.deviceCode)) as { success: { scope: string } }
    expect(got.success.scope).toBe("read")
  })

  it("unknown codes: 404 for the approver, expired_token for the poll; a bad name is 400", async () => {
    const { owner } = await setup()
    expect(failure(await world.exit(getCliLogin(owner, "BBBB-BBBB")))).toMatchObject({ _tag: "CliLoginNotFound" })
    expect(await poll(`cfd_${"A".repeat(43)}`)).toMatchObject(refusal("expired_token"))
    expect(failure(await world.exit(startCliLogin({ name: "a\u0000b", publicOrigin: "http://x" })))).toMatchObject({
      _tag: "BadRequest",
    })
  })

  it("fails closed when the cache is down", async () => {
    const { login } = await setup()
    world.cache.state.down = true
    expect(await poll(login.deviceCode)).toMatchObject({ _tag: "StoreUnavailable" })
  })
})
