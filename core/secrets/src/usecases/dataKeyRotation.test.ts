import { Cipher, StoreUnavailable } from "@coffer/kernel"
import { failure, legacySeal, makeWorld, newMasterKey, type World } from "@coffer/test-kit/secrets"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { SecretStore } from "../SecretStore.js"
import { rotateProjectDataKeys } from "./dataKeyRotation.js"
import { createProject } from "./projects.js"
import { legacyRowData } from "./sealing.js"
import { deleteSecret, exportJson, getSecret, getVersion, restoreVersion, setSecret } from "./secrets.js"

let world: World
afterEach(() => world?.runtime.dispose())

const setup = async (names: ReadonlyArray<string> = ["Alpha"]) => {
  world = makeWorld({ keyring: { current: newMasterKey(), previous: [] } })
  const ada = world.person("ada@example.com")
  for (const name of names) await world.run(createProject(ada, { name }))
  return { ada }
}

const projectOf = (slug: string, userId: string) =>
  world.run(SecretStore.use((store) => store.findProject(slug, userId))).then((found) => found!.project)

/** Every stored sealed value of the project, as the store holds it. */
const storedValues = async (slug: string, userId: string) => {
  const project = await projectOf(slug, userId)
  const rows = await world.run(
    SecretStore.use((store) =>
      store.listSealedValues({ projectId: project.id, except: "\u0000", after: undefined, limit: 10_000 }),
    ),
  )
  return rows.map((row) => row.value)
}

const value = async (ada: ReturnType<World["person"]>, slug: string, env: string, key: string, version?: number) =>
  version === undefined
    ? (await world.run(getSecret(ada, slug, env, key))).secret.value
    : (await world.run(getVersion(ada, slug, env, key, String(version)))).secret.value

describe("data-key rotation", () => {
  it("re-seals every version of every environment under a fresh data key; values, history and restore stay", async () => {
    const { ada } = await setup()
    for (const v of ["one", "two", "three"]) {
      await world.run(setSecret(ada, "alpha", "development", { key: "K", value: v }))
    }
    await world.run(setSecret(ada, "alpha", "production", { key: "P", value: "prod value" }))
    const before = await projectOf("alpha", ada.userId)
    expect((await storedValues("alpha", ada.userId)).every((v) => v.startsWith("csv2.1."))).toBe(true)

    const report = await world.run(rotateProjectDataKeys())
    expect(report.projects).toEqual([
      {
        projectId: before.id,
        slug: "alpha",
        dataKeyVersion: 2,
        newKey: true,
        resealed: 4,
        upgraded: 0,
        unreadable: 0,
        failed: undefined,
      },
    ])
    const after = await projectOf("alpha", ada.userId)
    expect(after.dataKeyVersion).toBe(2)
    expect(after.dataKey).not.toBe(before.dataKey)
    const stored = await storedValues("alpha", ada.userId)
    expect(stored).toHaveLength(4)
    expect(stored.every((v) => v.startsWith("csv2.2."))).toBe(true)
    expect(await value(ada, "alpha", "development", "K")).toBe("three")
    for (const [i, v] of ["one", "two", "three"].entries()) {
      expect(await value(ada, "alpha", "development", "K", i + 1)).toBe(v)
    }
    expect(await world.run(restoreVersion(ada, "alpha", "development", "K", "1"))).toMatchObject({ version: 4 })
    expect(await value(ada, "alpha", "development", "K")).toBe("one")
    expect(JSON.parse(await world.run(exportJson(ada, "alpha", "production")))).toEqual({ P: "prod value" })
    // The old version is kept, and a second run makes another.
    expect(await world.run(SecretStore.use((store) => store.findDataKey(before.id, 1)))).toBe(before.dataKey)
    const again = await world.run(rotateProjectDataKeys())
    expect(again.projects[0]).toMatchObject({ dataKeyVersion: 3, newKey: true, resealed: 5, unreadable: 0 })
    expect(await value(ada, "alpha", "development", "K", 2)).toBe("two")
  })

  it("opens a csv1 value from before data keys had versions, and upgrades it to csv2 by the re-seal", async () => {
    const { ada } = await setup()
    await world.run(setSecret(ada, "alpha", "development", { key: "OLD", value: "placeholder" }))
    const project = await projectOf("alpha", ada.userId)
    const environment = await world.run(SecretStore.use((store) => store.findEnvironment(project.id, "development")))
    const secret = await world.run(SecretStore.use((store) => store.findSecret(environment!.id, "OLD")))
    const [current] = await storedValues("alpha", ada.userId)
    const at = { environmentId: environment!.id, secretId: secret!.id, key: "OLD", version: 1 }
    const legacy = legacySeal(world.keyring.current, project.dataKey, "legacy value", legacyRowData(project.id, at))
    const put = await world.run(
      SecretStore.use((store) =>
        store.replaceSealedValues([{ secretId: secret!.id, version: 1, expected: current!, next: legacy }]),
      ),
    )
    expect(put).toBe(1)
    expect(await storedValues("alpha", ada.userId)).toEqual([legacy])
    expect(await value(ada, "alpha", "development", "OLD")).toBe("legacy value")

    const report = await world.run(rotateProjectDataKeys())
    expect(report.projects[0]).toMatchObject({ dataKeyVersion: 2, resealed: 1, upgraded: 1, unreadable: 0 })
    const [upgraded] = await storedValues("alpha", ada.userId)
    expect(upgraded).toMatch(/^csv2\.2\./)
    expect(await value(ada, "alpha", "development", "OLD")).toBe("legacy value")
  })

  it("does not open a ciphertext copied from a deleted key into the key re-created under its name", async () => {
    const { ada } = await setup()
    await world.run(setSecret(ada, "alpha", "development", { key: "K", value: "deleted value" }))
    const [old] = await storedValues("alpha", ada.userId)
    await world.run(deleteSecret(ada, "alpha", "development", "K"))
    await world.run(setSecret(ada, "alpha", "development", { key: "K", value: "new value" }))
    const project = await projectOf("alpha", ada.userId)
    const environment = await world.run(SecretStore.use((store) => store.findEnvironment(project.id, "development")))
    const secret = await world.run(SecretStore.use((store) => store.findSecret(environment!.id, "K")))
    const [fresh] = await storedValues("alpha", ada.userId)
    await world.run(
      SecretStore.use((store) =>
        store.replaceSealedValues([{ secretId: secret!.id, version: 1, expected: fresh!, next: old! }]),
      ),
    )
    const exit = await world.exit(getSecret(ada, "alpha", "development", "K"))
    expect(failure(exit)).toMatchObject({ _tag: "SecretUnreadable" })
    expect(JSON.stringify(failure(exit))).not.toContain("deleted value")
    // The rotation leaves such a value as it is and says so, without its content.
    const report = await world.run(rotateProjectDataKeys())
    expect(report.projects[0]).toMatchObject({ resealed: 0, unreadable: 1 })
    expect(await storedValues("alpha", ada.userId)).toEqual([old])
  })

  it("rotates only the project named, and refuses a slug no project has", async () => {
    const { ada } = await setup(["Alpha", "Beta"])
    await world.run(setSecret(ada, "alpha", "development", { key: "K", value: "a" }))
    await world.run(setSecret(ada, "beta", "development", { key: "K", value: "b" }))
    const report = await world.run(rotateProjectDataKeys({ slug: "beta" }))
    expect(report.projects.map((p) => [p.slug, p.dataKeyVersion, p.resealed])).toEqual([["beta", 2, 1]])
    expect((await projectOf("alpha", ada.userId)).dataKeyVersion).toBe(1)
    expect(await storedValues("alpha", ada.userId)).toEqual([expect.stringMatching(/^csv2\.1\./)])
    expect(await storedValues("beta", ada.userId)).toEqual([expect.stringMatching(/^csv2\.2\./)])
    expect(failure(await world.exit(rotateProjectDataKeys({ slug: "gamma" })))).toMatchObject({
      _tag: "ProjectNotFound",
    })
    expect(await value(ada, "beta", "development", "K")).toBe("b")
  })

  it("resumes a run that stopped after making the new key, instead of making another", async () => {
    const { ada } = await setup()
    for (const v of ["one", "two"]) await world.run(setSecret(ada, "alpha", "development", { key: "K", value: v }))
    const project = await projectOf("alpha", ada.userId)
    // What an interrupted run leaves: version 2 current, values still under version 1.
    const made = await world.run(
      Effect.gen(function* () {
        const dataKey = yield* Cipher.Cipher.use((cipher) => cipher.newDataKey)
        return yield* SecretStore.use((store) =>
          store.addDataKey({ projectId: project.id, expectedVersion: 1, dataKey }),
        )
      }),
    )
    expect(made).toBe(true)
    expect(await value(ada, "alpha", "development", "K", 1)).toBe("one")
    const report = await world.run(rotateProjectDataKeys())
    expect(report.projects[0]).toMatchObject({ dataKeyVersion: 2, newKey: false, resealed: 2 })
    expect((await storedValues("alpha", ada.userId)).every((v) => v.startsWith("csv2.2."))).toBe(true)
    expect(await value(ada, "alpha", "development", "K")).toBe("two")
  })

  it("resumes a run that stopped midway: the projects it got to keep their new key, the rest get theirs", async () => {
    // The store stops answering at the second project's re-seal, as a killed process or a lost database would.
    let reseals = 0
    world = makeWorld({
      keyring: { current: newMasterKey(), previous: [] },
      store: (store) => ({
        ...store,
        replaceSealedValues: (replacements) =>
          ++reseals === 2
            ? Effect.fail(new StoreUnavailable({ store: "database", message: "connection lost" }))
            : store.replaceSealedValues(replacements),
      }),
    })
    const ada = world.person("ada@example.com")
    for (const name of ["Alpha", "Beta", "Gamma"]) {
      await world.run(createProject(ada, { name }))
      await world.run(setSecret(ada, name.toLowerCase(), "development", { key: "K", value: name }))
    }
    expect(failure(await world.exit(rotateProjectDataKeys()))).toMatchObject({ _tag: "StoreUnavailable" })
    const versions = async () =>
      Promise.all(["alpha", "beta", "gamma"].map(async (slug) => (await projectOf(slug, ada.userId)).dataKeyVersion))
    expect(await versions()).toEqual([2, 2, 1])

    const resumed = await world.run(rotateProjectDataKeys())
    expect(resumed.projects.map((p) => [p.slug, p.dataKeyVersion, p.newKey, p.resealed])).toEqual([
      ["alpha", 2, false, 0],
      ["beta", 2, false, 1],
      ["gamma", 2, true, 1],
    ])
    for (const slug of ["alpha", "beta", "gamma"]) {
      expect(await storedValues(slug, ada.userId)).toEqual([expect.stringMatching(/^csv2\.2\./)])
    }
    // That run went through: the next is a rotation of its own.
    const next = await world.run(rotateProjectDataKeys({ slug: "alpha" }))
    expect(next.projects.map((p) => [p.slug, p.dataKeyVersion, p.newKey])).toEqual([["alpha", 3, true]])
    expect(await value(ada, "alpha", "development", "K")).toBe("Alpha")
  })

  it("loses nothing while writes and reads run concurrently with the rotation", async () => {
    const { ada } = await setup()
    const keys = Array.from({ length: 12 }, (_, i) => `K${i}`)
    for (const key of keys) await world.run(setSecret(ada, "alpha", "development", { key, value: `${key}=0` }))
    const writer = (key: string) =>
      Effect.gen(function* () {
        for (let n = 1; n <= 6; n++) {
          yield* setSecret(ada, "alpha", "development", { key, value: `${key}=${n}` })
          expect((yield* getSecret(ada, "alpha", "development", key)).secret.value).toBe(`${key}=${n}`)
          yield* Effect.yieldNow
        }
      })
    const [report] = await world.run(
      Effect.all([rotateProjectDataKeys({ batchSize: 3 }), ...keys.map(writer)], { concurrency: "unbounded" }),
    )
    expect(report.projects[0]).toMatchObject({ dataKeyVersion: 2, unreadable: 0 })
    for (const key of keys) {
      expect(await value(ada, "alpha", "development", key)).toBe(`${key}=6`)
      for (let n = 0; n <= 6; n++) expect(await value(ada, "alpha", "development", key, n + 1)).toBe(`${key}=${n}`)
    }
    // A value a writer sealed under version 1 after the first pass went by is still readable; a later run
    // re-seals whatever remains.
    await world.run(rotateProjectDataKeys())
    for (const key of keys) expect(await value(ada, "alpha", "development", key)).toBe(`${key}=6`)
  })
})
