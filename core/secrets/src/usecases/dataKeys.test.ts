import { Cipher } from "@coffer/kernel"
import { cipherLayer, makeWorld, newMasterKey, type World } from "@coffer/test-kit/secrets"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterEach, describe, expect, it } from "vitest"
import { SecretStore } from "../SecretStore.js"
import { rewrapDataKeys } from "./dataKeys.js"
import { createProject } from "./projects.js"
import { getSecret, setSecret } from "./secrets.js"

let world: World
afterEach(() => world?.runtime.dispose())

/** Runs `effect` in the world's store with a different keyring, as another process (`coffer keys`) would. */
const withKeyring = <A, E>(keyring: Cipher.Keyring, effect: Effect.Effect<A, E, SecretStore | Cipher.Cipher>) =>
  world.run(
    Effect.flatMap(SecretStore, (store) =>
      effect.pipe(Effect.provide(Layer.merge(Layer.succeed(SecretStore, store), cipherLayer(keyring)))),
    ),
  )

describe("master-key rotation", () => {
  it("re-wraps every data key under the new master key; values still read; a second run does nothing", async () => {
    const oldKey = newMasterKey()
    const newKey = newMasterKey()
    world = makeWorld({ keyring: { current: oldKey, previous: [] } })
    const ada = world.person()
    for (const name of ["Alpha", "Beta"]) {
      await world.run(createProject(ada, { name }))
      await world.run(setSecret(ada, name.toLowerCase(), "development", { key: "K", value: `value of ${name}` }))
    }
    const rotation = { current: newKey, previous: [oldKey] }
    const report = await withKeyring(rotation, rewrapDataKeys())
    expect(report).toMatchObject({ total: 2, rewrapped: 2, current: 0, failed: [] })
    const again = await withKeyring(rotation, rewrapDataKeys())
    expect(again).toMatchObject({ total: 2, rewrapped: 0, current: 2 })
    // Only the new key is needed from now on.
    const readWithNewKeyOnly = withKeyring(
      { current: newKey, previous: [] },
      Effect.flatMap(SecretStore, (store) => store.listDataKeys).pipe(
        Effect.flatMap((keys) => Effect.forEach(keys, (key) => Cipher.Cipher.use((c) => c.keyIdOf(key.dataKey)))),
      ),
    )
    expect(new Set(await readWithNewKeyOnly)).toEqual(new Set([report.currentKeyId]))
  })

  it("reports data keys whose master key is missing instead of failing the run", async () => {
    world = makeWorld()
    const ada = world.person()
    await world.run(createProject(ada, { name: "Alpha" }))
    const report = await withKeyring({ current: newMasterKey(), previous: [] }, rewrapDataKeys())
    expect(report.rewrapped).toBe(0)
    expect(report.failed).toEqual([
      {
        projectId: expect.any(String),
        slug: "alpha",
        version: 1,
        reason: expect.stringContaining("not in the keyring"),
      },
    ])
    // Nothing was changed: the original keyring still reads.
    await world.run(setSecret(ada, "alpha", "development", { key: "K", value: "v" }))
    expect((await world.run(getSecret(ada, "alpha", "development", "K"))).secret.value).toBe("v")
  })
})
