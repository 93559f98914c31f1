import { failure, makeWorld, type World } from "@coffer/test-kit/secrets"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { KeyCheckGeneration, renewingKeyChecks } from "./apiKeyChecks.js"
import { authenticateApiKey, createApiKey, deleteApiKey, rotateApiKey } from "./apiKeys.js"
import { acceptInvite, createInvite, removeMember } from "./people.js"
import { createProject, deleteProject } from "./projects.js"

let world: World
afterEach(() => world?.runtime.dispose())

const invalid = { _tag: "Unauthorized", message: "Invalid API key" }

const setup = async () => {
  world = makeWorld()
  const owner = world.person("owner@example.com")
  await world.run(createProject(owner, { name: "Alpha" }))
  const member = world.person("member@example.com")
  const { token } = await world.run(createInvite(owner, "alpha", { role: "write", publicOrigin: "http://x" }))
  await world.run(acceptInvite(member, token))
  const key = await world.run(createApiKey(member, { name: "ci", projectSlug: "alpha" }))
  // Checked once: from here on the check is answered from the cache.
  expect((await world.run(authenticateApiKey(key.key, null))).keyId).toBe(key.id)
  return { owner, member, key }
}

/** Whether the key is accepted now. */
const accepted = async (key: string) => (await world.exit(authenticateApiKey(key, null)))._tag === "Success"

describe("API-key checks through the cache", () => {
  it("answers a checked key from the cache: the store is not asked again until the generation is renewed", async () => {
    const { member, key } = await setup()
    // The holder's account removed behind the use cases' back, with no renewal: only a cached answer accepts it.
    world.users.delete(member.userId)
    expect(await accepted(key.key)).toBe(true)
    await world.run(renewingKeyChecks(Effect.void))
    expect(failure(await world.exit(authenticateApiKey(key.key, null)))).toEqual(invalid)
  })

  it("caches nothing for an unknown key, so guessing fills no entry", async () => {
    world = makeWorld()
    const owner = world.person("owner@example.com")
    await world.run(createProject(owner, { name: "Alpha" }))
    expect(failure(await world.exit(authenticateApiKey(`cfk_${"A".repeat(43)}`, null)))).toEqual(invalid)
    expect([...world.cache.entries.keys()].filter((name) => name.startsWith("secrets:api-key:"))).toEqual([])
  })

  it("keeps neither the key nor any part of its secret in the cache", async () => {
    const { key } = await setup()
    const values = [...world.cache.entries.values()].map((entry) => entry.value).join("\n")
    expect(values).not.toContain(key.key)
    expect(values).not.toContain(key.key.slice(4))
  })

  it("refuses a deleted key on the next request", async () => {
    const { member, key } = await setup()
    await world.run(deleteApiKey(member, key.id))
    expect(failure(await world.exit(authenticateApiKey(key.key, null)))).toEqual(invalid)
  })

  it("refuses a rotated key's old value on the next request, and accepts the new one", async () => {
    const { member, key } = await setup()
    const rotated = await world.run(rotateApiKey(member, key.id, {}))
    expect(failure(await world.exit(authenticateApiKey(key.key, null)))).toEqual(invalid)
    expect(await accepted(rotated.key)).toBe(true)
  })

  it("refuses a removed member's key on the next request", async () => {
    const { owner, member, key } = await setup()
    await world.run(removeMember(owner, "alpha", member.userId))
    expect(failure(await world.exit(authenticateApiKey(key.key, null)))).toEqual(invalid)
  })

  it("refuses the keys of a deleted project on the next request", async () => {
    const { owner, key } = await setup()
    await world.run(deleteProject(owner, "alpha"))
    expect(failure(await world.exit(authenticateApiKey(key.key, null)))).toEqual(invalid)
  })

  it("asks the store when the cache cannot be reached, and refuses every change that could not be told to it", async () => {
    const { member, key } = await setup()
    world.cache.state.down = true
    expect(await accepted(key.key)).toBe(true)
    expect(failure(await world.exit(deleteApiKey(member, key.id)))).toMatchObject({ _tag: "StoreUnavailable" })
    expect(failure(await world.exit(rotateApiKey(member, key.id, {})))).toMatchObject({ _tag: "StoreUnavailable" })
    world.cache.state.down = false
    // Nothing changed: the key still works, and deleting it now refuses it at once.
    expect(await accepted(key.key)).toBe(true)
    await world.run(deleteApiKey(member, key.id))
    expect(await accepted(key.key)).toBe(false)
  })

  it("counts a busy key's use with the shared counter once a minute, not on every request", async () => {
    const { key } = await setup()
    for (let i = 0; i < 5; i++) expect(await accepted(key.key)).toBe(true)
    const counter = () => world.cache.entries.get(`secrets:api-key-used:${key.id}`)?.value
    expect(counter()).toBe("1")
    world.clock.advance(60_000)
    for (let i = 0; i < 3; i++) expect(await accepted(key.key)).toBe(true)
    expect(counter()).toBe("1")
  })

  it("abandons a check cached while a change was in flight", async () => {
    const { key } = await setup()
    const entryKey = [...world.cache.entries.keys()].find((name) => name.startsWith("secrets:api-key:"))!
    // A reader that read the store during the change caches the old answer under the generation it read then.
    const during = await world.run(
      renewingKeyChecks(
        Effect.gen(function* () {
          world.cache.entries.delete(entryKey)
          yield* authenticateApiKey(key.key, null)
          return world.cache.entries.get(KeyCheckGeneration.key)?.value
        }),
      ),
    )
    expect(world.cache.entries.has(entryKey)).toBe(true)
    expect(world.cache.entries.get(KeyCheckGeneration.key)?.value).not.toBe(during)
    expect(world.cache.entries.get(entryKey)!.value.startsWith(`${during} `)).toBe(true)
  })
})
