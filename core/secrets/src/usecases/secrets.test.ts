import { Cipher } from "@coffer/kernel"
import { failure, makeWorld, type World } from "@coffer/test-kit/secrets"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { afterEach, describe, expect, it } from "vitest"
import { toDotenv, toJsonExport } from "../domain/dotenv.js"
import { EnvironmentGone, SecretChangedMeanwhile, VersionConflict } from "../errors.js"
import { SecretStore } from "../SecretStore.js"
import { authenticateApiKey, createApiKey } from "./apiKeys.js"
import { listAuditLog } from "./audit.js"
import { createEnvironment, deleteEnvironment } from "./environments.js"
import { createProject } from "./projects.js"
import { rowData } from "./sealing.js"
import {
  deleteSecret,
  exportDotenv,
  exportJson,
  getSecret,
  getVersion,
  listSecrets,
  listVersions,
  restoreVersion,
  setSecret,
} from "./secrets.js"

let world: World
afterEach(() => world?.runtime.dispose())

const setup = async () => {
  world = makeWorld()
  const ada = world.person("ada@example.com")
  const { project } = await world.run(createProject(ada, { name: "Alpha" }))
  return { ada, project }
}

describe("secrets", () => {
  it("creates at version 1, updates to the next, and lists by key without values", async () => {
    const { ada } = await setup()
    expect(await world.run(setSecret(ada, "alpha", "development", { key: "B", value: "one" }))).toEqual({
      ok: true,
      action: "created",
      version: 1,
    })
    world.clock.advance(1000)
    expect(await world.run(setSecret(ada, "alpha", "development", { key: "B", value: "two" }))).toEqual({
      ok: true,
      action: "updated",
      version: 2,
    })
    await world.run(setSecret(ada, "alpha", "development", { key: "A", value: "" }))
    await world.run(setSecret(ada, "alpha", "development", { key: "a", value: "x" }))
    const { secrets } = await world.run(listSecrets(ada, "alpha", "development"))
    expect(secrets.map((s) => [s.key, s.version])).toEqual([
      ["A", 1],
      ["B", 2],
      ["a", 1],
    ])
    expect(secrets.map((s) => s.empty)).toEqual([true, false, false])
    expect(secrets[1]).toEqual({
      id: expect.any(String),
      key: "B",
      version: 2,
      empty: false,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:01.000Z",
    })
    const { secret } = await world.run(getSecret(ada, "alpha", "development", "B"))
    expect(secret).toEqual({ ...secrets[1], value: "two" })
    expect((await world.run(getSecret(ada, "alpha", "development", "A"))).secret.value).toBe("")
  })

  it("keeps any string up to 64 KiB, and refuses more (413) and unpaired surrogates (400)", async () => {
    const { ada } = await setup()
    const values = ["", " ", "line1\nline2\r\n", "ünï©ødé 🎉", "'\"$`\\", "\u0000", "x".repeat(65536)]
    for (const [index, value] of values.entries()) {
      await world.run(setSecret(ada, "alpha", "development", { key: `K${index}`, value }))
      expect((await world.run(getSecret(ada, "alpha", "development", `K${index}`))).secret.value).toBe(value)
    }
    const large = await world.exit(setSecret(ada, "alpha", "development", { key: "BIG", value: "x".repeat(65537) }))
    expect(failure(large)).toMatchObject({ _tag: "ValueTooLarge" })
    expect(JSON.stringify(failure(large))).not.toContain("xxxx")
    const lone = await world.exit(setSecret(ada, "alpha", "development", { key: "L", value: "a\ud800b" }))
    expect(failure(lone)).toMatchObject({ _tag: "BadRequest" })
    expect(failure(await world.exit(getSecret(ada, "alpha", "development", "BIG")))).toMatchObject({
      _tag: "SecretNotFound",
    })
  })

  it("refuses keys that break the rules, and answers 404 for unknown environments", async () => {
    const { ada } = await setup()
    for (const key of ["", "..", ".", "a/b", "a b", "ключ", "k".repeat(257)]) {
      const exit = await world.exit(setSecret(ada, "alpha", "development", { key, value: "v" }))
      expect(failure(exit)).toMatchObject({ _tag: "InvalidName" })
    }
    const exit = await world.exit(setSecret(ada, "alpha", "nope", { key: "K", value: "v" }))
    expect(failure(exit)).toEqual({ _tag: "EnvironmentNotFound", message: "Environment not found" })
  })

  it("gives concurrent writers of one key contiguous versions, each value kept in history", async () => {
    const { ada } = await setup()
    const writers = 25
    const results = await world.run(
      Effect.all(
        Array.from({ length: writers }, (_, i) =>
          setSecret(ada, "alpha", "development", { key: "HOT", value: `v${i}` }),
        ),
        { concurrency: "unbounded" },
      ),
    )
    expect(results.map((r) => r.version).sort((a, b) => a - b)).toEqual(
      Array.from({ length: writers }, (_, i) => i + 1),
    )
    expect(results.filter((r) => r.action === "created")).toHaveLength(1)
    const { versions } = await world.run(listVersions(ada, "alpha", "development", "HOT"))
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: writers }, (_, i) => writers - i))
    for (const [i, result] of results.entries()) {
      const { secret } = await world.run(getVersion(ada, "alpha", "development", "HOT", String(result.version)))
      expect(secret.value).toBe(`v${i}`)
    }
  })

  it("reads the secret a write advances with its environment, and again only after another writer came first", async () => {
    const { ada } = await setup()
    await world.run(setSecret(ada, "alpha", "development", { key: "K", value: "one" }))
    const store = await world.run(SecretStore.use(Effect.succeed))
    let finds = 0
    let reaches = 0
    let interfere = false
    const watched: typeof store = {
      ...store,
      findSecret: (environmentId, key) => {
        finds++
        return store.findSecret(environmentId, key)
      },
      findProjectEnvironment: (...args) => {
        reaches++
        return store.findProjectEnvironment(...args)
      },
      // Another writer stores a version just before this one's first attempt, which then loses and starts over.
      writeSecret: (input) =>
        interfere
          ? Effect.andThen(
              Effect.sync(() => {
                interfere = false
              }),
              Effect.andThen(
                Effect.flatMap(store.findSecret(input.environmentId, input.key), (current) =>
                  store.writeSecret({ ...input, value: input.value, expectedVersion: current!.version }),
                ),
                store.writeSecret(input),
              ),
            )
          : store.writeSecret(input),
    }
    const write = (value: string) =>
      world.run(
        setSecret(ada, "alpha", "development", { key: "K", value }).pipe(Effect.provideService(SecretStore, watched)),
      )
    expect((await write("two")).version).toBe(2)
    expect([finds, reaches]).toEqual([0, 1])
    interfere = true
    expect((await write("four")).version).toBe(4)
    // Read once more: by the attempt after the lost one, through the writer's reach again, so that a writer removed
    // meanwhile is refused (the other writer reads the store directly).
    expect([finds, reaches]).toEqual([0, 3])
    const { secret } = await world.run(getSecret(ada, "alpha", "development", "K"))
    expect(secret.value).toBe("four")
  })

  it("retries a write another writer keeps beating 100 times, then answers the conflict; other failures at once", async () => {
    const { ada } = await setup()
    const store = await world.run(SecretStore.use(Effect.succeed))
    let attempts = 0
    const failingWith = (error: VersionConflict | EnvironmentGone): typeof store => ({
      ...store,
      writeSecret: () =>
        Effect.suspend(() => {
          attempts++
          return Effect.fail(error)
        }),
    })
    const write = (failing: typeof store) =>
      world.exit(
        setSecret(ada, "alpha", "development", { key: "K", value: "v" }).pipe(
          Effect.provideService(SecretStore, failing),
        ),
      )
    expect(failure(await write(failingWith(new VersionConflict({ message: "beaten" }))))).toMatchObject({
      _tag: "VersionConflict",
    })
    expect(attempts).toBe(101)
    attempts = 0
    expect(failure(await write(failingWith(new EnvironmentGone())))).toMatchObject({ _tag: "EnvironmentGone" })
    expect(attempts).toBe(1)
  })

  it("writes on an expected version only, and otherwise says the version it is at, writing and auditing nothing", async () => {
    const { ada } = await setup()
    const write = (value: string, expectedVersion: number) =>
      world.exit(setSecret(ada, "alpha", "development", { key: "DATABASE_URL", value, expectedVersion }))
    const refusal = (currentVersion: number, message: string) => ({
      _tag: "SecretChangedMeanwhile",
      message: `DATABASE_URL ${message}`,
      currentVersion,
    })
    const refused = async (value: string, expectedVersion: number) => {
      const error = Option.getOrThrow(Exit.findErrorOption(await write(value, expectedVersion)))
      return error instanceof SecretChangedMeanwhile
        ? { _tag: error._tag, message: error.message, currentVersion: error.currentVersion }
        : error
    }
    expect(failure(await write("one", 0))).toEqual({ success: { ok: true, action: "created", version: 1 } })
    expect(await refused("mine", 0)).toEqual(refusal(1, "exists already (version 1): it was expected not to exist"))
    expect(failure(await write("two", 1))).toEqual({ success: { ok: true, action: "updated", version: 2 } })
    expect(await refused("mine", 1)).toEqual(refusal(2, "is at version 2, not 1: it changed since it was read"))
    expect(await refused("mine", 3)).toEqual(refusal(2, "is at version 2, not 3: it changed since it was read"))
    expect((await world.run(getSecret(ada, "alpha", "development", "DATABASE_URL"))).secret).toMatchObject({
      value: "two",
      version: 2,
    })
    await world.run(deleteSecret(ada, "alpha", "development", "DATABASE_URL"))
    expect(await refused("mine", 2)).toEqual(
      refusal(0, "does not exist (expected version 2): it was deleted since it was read, or never created"),
    )
    expect(failure(await world.exit(getSecret(ada, "alpha", "development", "DATABASE_URL")))).toMatchObject({
      _tag: "SecretNotFound",
    })
    // Only what was written is in the log (and the one read above); no message carries a value.
    const { auditLog } = await world.run(listAuditLog(ada, "alpha", {}))
    expect(auditLog.map((entry) => entry.action).reverse()).toEqual([
      "project.created",
      "secret.created",
      "secret.updated",
      "secret.read",
      "secret.deleted",
    ])
    // A number that is not a version is refused before anything is written; left out, the write is as before.
    for (const expectedVersion of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(failure(await write("x", expectedVersion))).toEqual({
        _tag: "BadRequest",
        message: "expectedVersion must be a whole number from 0 to 9007199254740991",
      })
    }
    expect(failure(await world.exit(listVersions(ada, "alpha", "development", "DATABASE_URL")))).toMatchObject({
      _tag: "SecretNotFound",
    })
    expect(await world.run(setSecret(ada, "alpha", "development", { key: "DATABASE_URL", value: "free" }))).toEqual({
      ok: true,
      action: "created",
      version: 1,
    })
  })

  it("lets exactly one of concurrent writes with the same expected version land; the others say which won", async () => {
    const { ada } = await setup()
    await world.run(setSecret(ada, "alpha", "development", { key: "HOT", value: "base" }))
    const exits = await world.run(
      Effect.all(
        Array.from({ length: 25 }, (_, i) =>
          Effect.exit(setSecret(ada, "alpha", "development", { key: "HOT", value: `v${i}`, expectedVersion: 1 })),
        ),
        { concurrency: "unbounded" },
      ),
    )
    const results = exits.map(failure)
    expect(results.filter((result) => "success" in result)).toEqual([
      { success: { ok: true, action: "updated", version: 2 } },
    ])
    expect(results.filter((result) => !("success" in result))).toEqual(
      Array.from({ length: 24 }, () => ({
        _tag: "SecretChangedMeanwhile",
        message: "HOT is at version 2, not 1: it changed since it was read",
      })),
    )
    const { versions } = await world.run(listVersions(ada, "alpha", "development", "HOT"))
    expect(versions.map((version) => version.version)).toEqual([2, 1])
  })

  it("keeps history newest first with who wrote it, reads and restores old versions, audited", async () => {
    const { ada } = await setup()
    const bob = world.person("bob@example.com")
    await world.run(setSecret(ada, "alpha", "development", { key: "K", value: "first" }))
    world.clock.advance(1)
    const key = await world.run(createApiKey(ada, { name: "ci", projectSlug: "alpha", scope: "write" }))
    const asKey = await world.run(authenticateApiKey(key.key, "198.51.100.1"))
    await world.run(setSecret(asKey, "alpha", "development", { key: "K", value: "second" }))
    world.clock.advance(1)
    const { versions } = await world.run(listVersions(ada, "alpha", "development", "K"))
    const by = { userId: ada.userId, userEmail: "ada@example.com" }
    expect(versions).toEqual([
      { version: 2, createdAt: "2026-01-01T00:00:00.001Z", ...by, restoredFrom: null },
      { version: 1, createdAt: "2026-01-01T00:00:00.000Z", ...by, restoredFrom: null },
    ])
    expect(await world.run(getVersion(ada, "alpha", "development", "K", "1"))).toEqual({
      secret: { key: "K", value: "first", version: 1, createdAt: "2026-01-01T00:00:00.000Z" },
    })
    expect(await world.run(restoreVersion(ada, "alpha", "development", "K", "1"))).toEqual({
      ok: true,
      action: "restored",
      version: 3,
    })
    expect((await world.run(getSecret(ada, "alpha", "development", "K"))).secret).toMatchObject({
      value: "first",
      version: 3,
    })
    // The restore is told from the writes before it by the version it brought back.
    const restored = await world.run(listVersions(ada, "alpha", "development", "K"))
    expect(restored.versions.map((v) => [v.version, v.restoredFrom])).toEqual([
      [3, 1],
      [2, null],
      [1, null],
    ])
    for (const n of ["0", "-1", "1.5", "01", "x", "1e3", "99999999999999999"]) {
      expect(failure(await world.exit(getVersion(ada, "alpha", "development", "K", n)))).toMatchObject({
        _tag: "BadRequest",
      })
    }
    // A well-formed number is a version, found or not, however large.
    for (const n of ["4", "99999999999", String(Number.MAX_SAFE_INTEGER)]) {
      expect(failure(await world.exit(getVersion(ada, "alpha", "development", "K", n)))).toEqual({
        _tag: "SecretVersionNotFound",
        message: "Version not found",
      })
    }
    expect(failure(await world.exit(restoreVersion(bob, "alpha", "development", "K", "1")))).toMatchObject({
      _tag: "ProjectNotFound",
    })
    const { auditLog } = await world.run(listAuditLog(ada, "alpha", {}))
    expect(auditLog.map((entry) => [entry.action, entry.targetKey, entry.ipAddress])).toEqual([
      ["secret.read", "K", "203.0.113.7"],
      ["secret.restored", "K@1", "203.0.113.7"],
      ["secret.read", "K@1", "203.0.113.7"],
      ["secret.updated", "K", "198.51.100.1"],
      ["api_key.created", "ci", "203.0.113.7"],
      ["secret.created", "K", "203.0.113.7"],
      ["project.created", "alpha", "203.0.113.7"],
    ])
    expect(JSON.stringify(auditLog)).not.toMatch(/first|second/)
  })

  it("deletes a secret with its history; a new one starts again at version 1", async () => {
    const { ada } = await setup()
    await world.run(setSecret(ada, "alpha", "development", { key: "K", value: "a" }))
    await world.run(setSecret(ada, "alpha", "development", { key: "K", value: "b" }))
    expect(await world.run(deleteSecret(ada, "alpha", "development", "K"))).toEqual({ ok: true })
    expect(failure(await world.exit(deleteSecret(ada, "alpha", "development", "K")))).toMatchObject({
      _tag: "SecretNotFound",
    })
    expect(failure(await world.exit(listVersions(ada, "alpha", "development", "K")))).toMatchObject({
      _tag: "SecretNotFound",
    })
    expect((await world.run(setSecret(ada, "alpha", "development", { key: "K", value: "c" }))).version).toBe(1)
    expect((await world.run(listVersions(ada, "alpha", "development", "K"))).versions).toHaveLength(1)
  })

  it("removes an environment's secrets with it; 409 for a name that exists", async () => {
    const { ada } = await setup()
    await world.run(createEnvironment(ada, "alpha", { name: "qa" }))
    expect(failure(await world.exit(createEnvironment(ada, "alpha", { name: "qa" })))).toMatchObject({
      _tag: "EnvironmentExists",
    })
    await world.run(setSecret(ada, "alpha", "qa", { key: "K", value: "v" }))
    await world.run(deleteEnvironment(ada, "alpha", "qa"))
    await world.run(createEnvironment(ada, "alpha", { name: "qa" }))
    expect((await world.run(listSecrets(ada, "alpha", "qa"))).secrets).toEqual([])
  })

  it("exports .env and JSON, both audited with their format", async () => {
    const { ada } = await setup()
    await world.run(setSecret(ada, "alpha", "production", { key: "B_URL", value: "https://x.example/a?b=c" }))
    await world.run(setSecret(ada, "alpha", "production", { key: "A", value: "it's $HOME" }))
    await world.run(setSecret(ada, "alpha", "production", { key: "with-dash", value: "in both" }))
    expect(await world.run(exportDotenv(ada, "alpha", "production"))).toEqual({
      filename: "production.env",
      text: "A=\"it's \\$HOME\"\nB_URL='https://x.example/a?b=c'\nwith-dash='in both'\n",
    })
    expect(JSON.parse(await world.run(exportJson(ada, "alpha", "production")))).toEqual({
      A: "it's $HOME",
      B_URL: "https://x.example/a?b=c",
      "with-dash": "in both",
    })
    const { auditLog } = await world.run(listAuditLog(ada, "alpha", { limit: "2" }))
    expect(auditLog.map((entry) => [entry.action, entry.targetKey])).toEqual([
      ["secrets.exported", "json"],
      ["secrets.exported", "dotenv"],
    ])
  })

  it("exports tricky values and keys exactly as the domain's formatters write them", async () => {
    const { ada } = await setup()
    const values = [
      "",
      "plain",
      "it's $HOME",
      "line\nbreak\r\n",
      'say "hi" `now` \\ done',
      "tab\there",
      "é ✓ 😀",
      "a\u0000b",
      "x".repeat(5_000),
    ]
    const keys = ["B", "a", "10", "2", "__proto__", "with-dash", "dotted.key", "_", "Z9", "0", "constructor"]
    const entries = keys.map((key, i) => ({ key, value: values[i % values.length]! }))
    for (const { key, value } of entries) await world.run(setSecret(ada, "alpha", "production", { key, value }))
    // The order a user sees: by key in UTF-16 code units, whatever order they were written in.
    const byKey = [...entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    const dotenv = await world.run(exportDotenv(ada, "alpha", "production"))
    expect(dotenv.text).toBe(toDotenv(byKey))
    const json = await world.run(exportJson(ada, "alpha", "production"))
    expect(json).toBe(JSON.stringify(toJsonExport(byKey)))
    expect(Object.entries(JSON.parse(json)).sort()).toEqual(entries.map(({ key, value }) => [key, value]).sort())
  })
})

describe("encryption at rest", () => {
  it("stores only sealed values, bound to their row", async () => {
    const { ada, project } = await setup()
    await world.run(setSecret(ada, "alpha", "development", { key: "K", value: "plain secret text" }))
    const environment = await world.run(SecretStore.use((store) => store.findEnvironment(project.id, "development")))
    const found = await world.run(
      SecretStore.use((store) => store.readSecret({ environmentId: environment!.id, key: "K" })),
    )
    expect(found?.sealed?.value).toMatch(/^csv2\.1\./)
    expect(found?.sealed?.value).not.toContain("plain secret text")
    // The same ciphertext under the associated data of another version or key does not open.
    const stored = await world.run(
      SecretStore.use((store) => store.findProject("alpha", ada.userId)).pipe(Effect.map((found) => found!.project)),
    )
    const openAs = (key: string, version: number, secretId = found!.secret.id) =>
      world.exit(
        Cipher.Cipher.use((cipher) =>
          cipher.open(
            stored.dataKey,
            found!.sealed!.value,
            rowData(project.id, { environmentId: environment!.id, secretId, key, version }),
          ),
        ),
      )
    expect(failure(await openAs("K", 1))).toEqual({ success: "plain secret text" })
    expect(failure(await openAs("K", 2))).toMatchObject({ _tag: "CipherError" })
    expect(failure(await openAs("J", 1))).toMatchObject({ _tag: "CipherError" })
    expect(failure(await openAs("K", 1, "another-secret"))).toMatchObject({ _tag: "CipherError" })
  })

  it("fails cleanly when a ciphertext is moved to another row", async () => {
    const { ada, project } = await setup()
    await world.run(setSecret(ada, "alpha", "development", { key: "A", value: "value of A" }))
    await world.run(setSecret(ada, "alpha", "development", { key: "B", value: "value of B" }))
    const environment = await world.run(SecretStore.use((store) => store.findEnvironment(project.id, "development")))
    const sealedA = await world.run(
      SecretStore.use((store) => store.readSecret({ environmentId: environment!.id, key: "A" })),
    )
    const secretB = await world.run(SecretStore.use((store) => store.findSecret(environment!.id, "B")))
    // Write A's ciphertext as B's next version, as an attacker with database access could.
    const shown = (await world.run(listAuditLog(ada, "alpha", { limit: "1" }))).auditLog[0]!
    const audit = { ...shown, id: "forged", createdAt: Date.parse(shown.createdAt) }
    await world.run(
      SecretStore.use((store) =>
        store.writeSecret({
          environmentId: environment!.id,
          key: "B",
          expectedVersion: 1,
          secretId: secretB!.id,
          value: sealedA!.sealed!.value,
          empty: false,
          userId: ada.userId,
          at: Date.parse("2026-01-01T00:00:00.000Z"),
          audit: { ...audit, action: "secret.updated" },
        }),
      ),
    )
    const exit = await world.exit(getSecret(ada, "alpha", "development", "B"))
    expect(failure(exit)).toMatchObject({ _tag: "SecretUnreadable" })
    expect(JSON.stringify(failure(exit))).not.toContain("value of")
    expect(failure(await world.exit(exportJson(ada, "alpha", "development")))).toMatchObject({
      _tag: "SecretUnreadable",
    })
  })
})
