/**
 * The SchemaStore contract: every rule written on `@coffer/schemas`' SchemaStore port, checked against an
 * adapter. `makeStore` is built once per test (a layer that must start empty: a fresh database, a new memory
 * store), so no test depends on another's leftovers.
 */
import {
  type AuditEntry,
  type OutputWrite,
  type SchemaId,
  SchemaStore,
  type SchemaWrite,
  type StoredToken,
} from "@coffer/schemas"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { checkAndSetSuite } from "./schemaStoreCheckAndSet.js"
import { overviewSuite } from "./schemaStoreOverview.js"
import { revisionSuite } from "./schemaStoreRevisions.js"

class Boom extends Schema.TaggedError<Boom>()("Boom", {}) {}

const T0 = Date.UTC(2026, 0, 31, 12, 0, 0)

type Store = SchemaStore["Service"]

/** JSON as `JSON.parse` builds it, with the keys that trip naive merges and copies. */
const awkwardContent = (): Schema.JsonObject =>
  JSON.parse(
    '{"__proto__":{"polluted":true},"constructor":{"prototype":1},"nested":{"deep":[1,{"x":null}],"é":"日本"},"n":-0.5,"big":12345678901234,"t":true,"s":"line\\nbreak \\"quoted\\""}',
  )

const schemaWrite = (id: SchemaId, overrides: Partial<SchemaWrite> = {}): SchemaWrite => ({
  ...id,
  content: { own: id.version },
  dependencies: [],
  output: { own: id.version },
  sources: [id.platform],
  savedBy: "ada@example.com",
  savedAt: T0,
  ...overrides,
})

const token = (id: string, overrides: Partial<StoredToken> = {}): StoredToken => ({
  id,
  name: `token ${id}`,
  platforms: null,
  hint: "cfs_…abcd",
  createdAt: T0,
  createdBy: "ada@example.com",
  lastUsedAt: undefined,
  hash: `hash-${id}`,
  ...overrides,
})

const entry = (id: string, at: number, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  id,
  at,
  actor: "ada@example.com",
  action: "platform.delete",
  target: "ios",
  detail: undefined,
  ...overrides,
})

/** A platform with versions, in one go. */
const platformWith = (store: Store, name: string, versions: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    yield* store.insertPlatform(name, undefined, T0)
    yield* store.insertVersions(name, versions, T0)
  })

export const schemaStoreSuite = (name: string, makeStore: () => Layer.Layer<SchemaStore, unknown>) =>
  describe(`SchemaStore contract: ${name}`, () => {
    const run = <A, E>(test: (store: Store) => Effect.Effect<A, E>): Promise<A> =>
      Effect.runPromise(Effect.flatMap(SchemaStore, test).pipe(Effect.provide(makeStore())))

    describe("platforms and versions", () => {
      it("lists platforms by name with versions in version order, stored exactly as given", () =>
        run((store) =>
          Effect.gen(function* () {
            expect(yield* store.listPlatforms).toEqual([])
            expect(yield* store.insertPlatform("web", "web", T0)).toBe(true)
            expect(yield* store.insertPlatform("android", undefined, T0)).toBe(true)
            yield* store.insertVersions(
              "web",
              ["10.0.0", "2.0.0", "2.0.0-rc.1", "1.0.0+b", "1.0.0+B", "1.0.0", "2.0.0-rc.1+build.7"],
              T0,
            )
            expect(yield* store.listPlatforms).toEqual([
              { name: "android", kind: undefined, versions: [] },
              {
                name: "web",
                kind: "web",
                versions: ["1.0.0", "1.0.0+B", "1.0.0+b", "2.0.0-rc.1", "2.0.0-rc.1+build.7", "2.0.0", "10.0.0"],
              },
            ])
            expect(yield* store.findPlatform("web")).toMatchObject({ name: "web", kind: "web" })
            expect(yield* store.findPlatform("Web")).toBeUndefined()
            expect(yield* store.findPlatform("nothing")).toBeUndefined()
          }),
        ))

      it("creates a name once, under concurrent calls too; insertVersions skips listed versions", () =>
        run((store) =>
          Effect.gen(function* () {
            const results = yield* Effect.all(
              Array.from({ length: 8 }, (_, i) => store.insertPlatform("ios", i % 2 === 0 ? "ios" : undefined, T0)),
              { concurrency: "unbounded" },
            )
            expect(results.filter(Boolean)).toHaveLength(1)
            expect(yield* store.insertPlatform("ios", "custom", T0)).toBe(false)
            yield* store.insertVersions("ios", ["1.0.0"], T0)
            yield* store.insertVersions("ios", ["1.0.0", "1.1.0"], T0)
            expect((yield* store.findPlatform("ios"))?.versions).toEqual(["1.0.0", "1.1.0"])
          }),
        ))

      it("changes a kind with setKind", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* store.insertPlatform("ios", undefined, T0)
            yield* store.setKind("ios", "ios")
            expect((yield* store.findPlatform("ios"))?.kind).toBe("ios")
            yield* store.setKind("ios", "custom")
            expect((yield* store.findPlatform("ios"))?.kind).toBe("custom")
          }),
        ))

      it("loads many platforms at once, with the content of each version that has a schema", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* platformWith(store, "a", ["1.0.0", "2.0.0"])
            yield* platformWith(store, "b", ["0.1.0"])
            yield* platformWith(store, "c", [])
            yield* store.saveSchema(schemaWrite({ platform: "a", version: "2.0.0" }, { content: awkwardContent() }))
            const loaded = yield* store.loadPlatforms(["a", "b", "c", "missing", "a"])
            expect([...loaded.keys()].sort()).toEqual(["a", "b", "c"])
            const a = loaded.get("a")!
            expect(a.versions).toEqual(["1.0.0", "2.0.0"])
            expect([...a.schemas.keys()]).toEqual(["2.0.0"])
            expect(JSON.stringify(a.schemas.get("2.0.0"))).toBe(JSON.stringify(awkwardContent()))
            expect(Object.getPrototypeOf(a.schemas.get("2.0.0"))).toBe(Object.prototype)
            expect(loaded.get("c")).toMatchObject({ name: "c", versions: [] })
            expect((yield* store.loadPlatforms([])).size).toBe(0)
          }),
        ))

      it("loads a few hundred platforms in one call", () =>
        run((store) =>
          Effect.gen(function* () {
            const names = Array.from({ length: 1200 }, (_, i) => `p${i}`)
            for (const name of names.slice(0, 300)) yield* platformWith(store, name, ["1.0.0"])
            const loaded = yield* store.loadPlatforms(names)
            expect(loaded.size).toBe(300)
          }),
        ))
    })

    describe("schemas", () => {
      it("saves a schema exactly, replaces it on the next save, and keeps every content as a revision", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* platformWith(store, "ios", ["1.0.0", "1.1.0"])
            const id = { platform: "ios", version: "1.0.0" }
            expect(yield* store.findSchema(id)).toBeUndefined()
            const first = schemaWrite(id, {
              content: awkwardContent(),
              dependencies: ["base", "shared/^1.0.0"],
              output: { merged: awkwardContent() },
              sources: ["shared", "ios", "base", "ios"],
            })
            yield* store.saveSchema(first)
            expect(yield* store.findSchema(id)).toEqual({
              ...id,
              content: first.content,
              dependencies: ["base", "shared/^1.0.0"],
              output: first.output,
              sources: ["base", "ios", "shared"],
            })
            expect(JSON.stringify((yield* store.findSchema(id))?.content)).toBe(JSON.stringify(awkwardContent()))
            yield* store.saveSchema(schemaWrite(id, { content: { v: 2 }, savedBy: "bob@example.com", savedAt: T0 + 5 }))
            expect((yield* store.findSchema(id))?.content).toEqual({ v: 2 })
            expect(yield* store.revisions(id)).toEqual([
              { revision: 1, content: first.content, output: first.output, savedBy: "ada@example.com", savedAt: T0 },
              { revision: 2, content: { v: 2 }, output: { own: "1.0.0" }, savedBy: "bob@example.com", savedAt: T0 + 5 },
            ])
            expect(yield* store.findSchema({ platform: "ios", version: "1.1.0" })).toBeUndefined()
          }),
        ))

      it("keeps unknown sources unknown", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* platformWith(store, "ios", ["1.0.0"])
            const id = { platform: "ios", version: "1.0.0" }
            yield* store.saveSchema(schemaWrite(id, { dependencies: ["base/1.0.0"], sources: undefined }))
            expect((yield* store.findSchema(id))?.sources).toBeUndefined()
          }),
        ))

      it("is not changed by a caller mutating what it passed or received", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* platformWith(store, "ios", ["1.0.0"])
            const id = { platform: "ios", version: "1.0.0" }
            const write = schemaWrite(id, { content: { list: [1] }, output: { list: [1] } })
            yield* store.saveSchema(write)
            ;(write.content.list as Array<number>).push(2)
            const read = yield* store.findSchema(id)
            ;(read!.output.list as Array<number>).push(3)
            expect(yield* store.findSchema(id)).toMatchObject({ content: { list: [1] }, output: { list: [1] } })
          }),
        ))

      it("records exactly the edges of the saved dependencies, and finds them by referenced platform", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* platformWith(store, "base", ["1.0.0"])
            yield* platformWith(store, "ios", ["1.0.0", "2.0.0"])
            yield* platformWith(store, "web", ["1.0.0"])
            const ios1 = { platform: "ios", version: "1.0.0" }
            yield* store.saveSchema(schemaWrite(ios1, { dependencies: ["base/1.0.0", "web", "not a/ref/x"] }))
            yield* store.saveSchema(
              schemaWrite({ platform: "ios", version: "2.0.0" }, { dependencies: ["base/^1.0.0", "base/latest"] }),
            )
            const sort = (edges: ReadonlyArray<{ dependent: SchemaId; reference: string }>) =>
              [...edges].sort((a, b) =>
                `${a.dependent.version} ${a.reference}` < `${b.dependent.version} ${b.reference}` ? -1 : 1,
              )
            expect(sort(yield* store.dependentsOf(["base"]))).toEqual([
              { dependent: ios1, platform: "base", reference: "base/1.0.0" },
              { dependent: { platform: "ios", version: "2.0.0" }, platform: "base", reference: "base/^1.0.0" },
              { dependent: { platform: "ios", version: "2.0.0" }, platform: "base", reference: "base/latest" },
            ])
            expect(yield* store.dependentsOf(["web", "nothing"])).toEqual([
              { dependent: ios1, platform: "web", reference: "web" },
            ])
            // A save replaces the schema's edges.
            yield* store.saveSchema(schemaWrite(ios1, { dependencies: ["web/1.0.0"] }))
            expect((yield* store.dependentsOf(["base"])).map((edge) => edge.dependent.version)).toEqual([
              "2.0.0",
              "2.0.0",
            ])
            expect(yield* store.dependentsOf(["web"])).toEqual([
              { dependent: ios1, platform: "web", reference: "web/1.0.0" },
            ])
            expect(yield* store.dependentsOf([])).toEqual([])
          }),
        ))

      it("changes only outputs and sources with saveOutputs, with no revision, and skips missing schemas", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* platformWith(store, "ios", ["1.0.0", "2.0.0"])
            const id = { platform: "ios", version: "1.0.0" }
            yield* store.saveSchema(schemaWrite(id, { dependencies: ["base"], sources: undefined }))
            const outputs: ReadonlyArray<OutputWrite> = [
              { ...id, output: { fresh: true }, sources: ["ios", "base"] },
              { platform: "ios", version: "2.0.0", output: { ghost: true }, sources: ["ios"] },
              { platform: "nothing", version: "1.0.0", output: {}, sources: [] },
            ]
            yield* store.saveOutputs(outputs)
            expect(yield* store.findSchema(id)).toEqual({
              ...id,
              content: { own: "1.0.0" },
              dependencies: ["base"],
              output: { fresh: true },
              sources: ["base", "ios"],
            })
            expect(yield* store.findSchema({ platform: "ios", version: "2.0.0" })).toBeUndefined()
            expect(yield* store.revisions(id)).toHaveLength(1)
            expect((yield* store.dependentsOf(["base"])).length).toBe(1)
          }),
        ))
    })

    revisionSuite(run)
    checkAndSetSuite(run)

    overviewSuite(run)

    describe("removal", () => {
      it("removes versions with their schema, history and edges, and leaves edges towards them", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* platformWith(store, "base", ["1.0.0", "2.0.0"])
            yield* platformWith(store, "ios", ["1.0.0", "2.0.0", "3.0.0"])
            for (const version of ["1.0.0", "2.0.0", "3.0.0"]) {
              yield* store.saveSchema(schemaWrite({ platform: "ios", version }, { dependencies: ["base/1.0.0"] }))
            }
            yield* store.saveSchema(
              schemaWrite({ platform: "base", version: "2.0.0" }, { dependencies: ["ios/3.0.0"] }),
            )
            yield* store.removeVersions("ios", ["1.0.0", "3.0.0", "9.9.9"])
            expect((yield* store.findPlatform("ios"))?.versions).toEqual(["2.0.0"])
            expect(yield* store.findSchema({ platform: "ios", version: "1.0.0" })).toBeUndefined()
            expect(yield* store.revisions({ platform: "ios", version: "1.0.0" })).toEqual([])
            expect((yield* store.dependentsOf(["base"])).map((edge) => edge.dependent)).toEqual([
              { platform: "ios", version: "2.0.0" },
            ])
            // The edge base/2.0.0 holds towards ios is the caller's to judge: it stays.
            expect(yield* store.dependentsOf(["ios"])).toHaveLength(1)
            // A version added again starts with no schema and no history.
            yield* store.insertVersions("ios", ["1.0.0"], T0)
            expect(yield* store.findSchema({ platform: "ios", version: "1.0.0" })).toBeUndefined()
            expect(yield* store.revisions({ platform: "ios", version: "1.0.0" })).toEqual([])
          }),
        ))

      it("removes a platform with everything of its versions", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* platformWith(store, "base", ["1.0.0"])
            yield* platformWith(store, "ios", ["1.0.0", "2.0.0"])
            yield* store.saveSchema(
              schemaWrite({ platform: "ios", version: "1.0.0" }, { dependencies: ["base/1.0.0"] }),
            )
            yield* store.removePlatform("ios")
            expect(yield* store.findPlatform("ios")).toBeUndefined()
            expect((yield* store.listPlatforms).map((platform) => platform.name)).toEqual(["base"])
            expect(yield* store.dependentsOf(["base"])).toEqual([])
            expect(yield* store.revisions({ platform: "ios", version: "1.0.0" })).toEqual([])
            // The name is free again, and the new platform starts empty.
            expect(yield* store.insertPlatform("ios", undefined, T0)).toBe(true)
            expect((yield* store.findPlatform("ios"))?.versions).toEqual([])
          }),
        ))

      it("takes a removed platform out of every token's list, an emptied list staying empty, not all", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* platformWith(store, "ios", ["1.0.0"])
            yield* platformWith(store, "ios_x", ["1.0.0"])
            yield* store.insertToken(token("only", { platforms: ["ios"] }))
            yield* store.insertToken(token("two", { platforms: ["ios", "web"] }))
            yield* store.insertToken(token("near", { platforms: ["ios_x", "iosa"] }))
            yield* store.insertToken(token("all", { platforms: null }))
            const narrowed = yield* store.removePlatform("ios")
            expect(
              narrowed
                .map(({ id, hash, platforms }) => ({ id, hash, platforms }))
                .sort((a, b) => (a.id < b.id ? -1 : 1)),
            ).toEqual([
              { id: "only", hash: "hash-only", platforms: [] },
              { id: "two", hash: "hash-two", platforms: ["web"] },
            ])
            const scopes = Object.fromEntries((yield* store.listTokens).map((record) => [record.id, record.platforms]))
            expect(scopes).toEqual({ only: [], two: ["web"], near: ["ios_x", "iosa"], all: null })
            expect((yield* store.findTokenByHash("hash-only"))?.platforms).toEqual([])
            // Names match whole: removing ios left ios_x where it was; a name no list holds changes none.
            expect(yield* store.removePlatform("ios_x")).toEqual([{ ...token("near"), platforms: ["iosa"] }])
            expect(yield* store.removePlatform("absent")).toEqual([])
          }),
        ))
    })

    describe("transaction", () => {
      const versionsOf = (store: Store, name: string) =>
        Effect.map(store.findPlatform(name), (platform) => platform?.versions)

      it("keeps every write when the effect succeeds", () =>
        run((store) =>
          Effect.gen(function* () {
            const value = yield* store.transaction(
              Effect.gen(function* () {
                yield* platformWith(store, "ios", ["1.0.0"])
                yield* store.saveSchema(schemaWrite({ platform: "ios", version: "1.0.0" }))
                // Reads inside see the writes made so far.
                expect(yield* versionsOf(store, "ios")).toEqual(["1.0.0"])
                return "done"
              }),
            )
            expect(value).toBe("done")
            expect(yield* store.findSchema({ platform: "ios", version: "1.0.0" })).toBeDefined()
          }),
        ))

      it("keeps none of the writes when the effect fails, dies or is interrupted", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* platformWith(store, "ios", ["1.0.0"])
            yield* store.insertToken(token("t1"))
            const writes = Effect.gen(function* () {
              yield* store.insertVersions("ios", ["2.0.0"], T0)
              yield* store.saveSchema(schemaWrite({ platform: "ios", version: "1.0.0" }))
              yield* store.insertPlatform("web", undefined, T0)
              yield* store.removeToken("t1")
              yield* store.appendAudit(entry("e1", T0))
            })
            const failure = yield* Effect.flip(store.transaction(Effect.andThen(writes, Effect.fail(new Boom()))))
            expect(failure._tag).toBe("Boom")
            const died = yield* Effect.exit(store.transaction(Effect.andThen(writes, Effect.die("bug"))))
            expect(died._tag).toBe("Failure")
            const interrupted = yield* store
              .transaction(Effect.andThen(writes, Effect.never))
              .pipe(Effect.timeoutOption("100 millis"))
            expect(interrupted._tag).toBe("None")
            expect(yield* store.listPlatforms).toEqual([{ name: "ios", kind: undefined, versions: ["1.0.0"] }])
            expect(yield* store.findSchema({ platform: "ios", version: "1.0.0" })).toBeUndefined()
            expect((yield* store.listTokens).map((record) => record.id)).toEqual(["t1"])
            expect(yield* store.listAudit({ limit: 10 })).toEqual([])
            // And the store still works.
            yield* store.transaction(store.insertVersions("ios", ["3.0.0"], T0))
            expect(yield* versionsOf(store, "ios")).toEqual(["1.0.0", "3.0.0"])
          }),
        ))

      it("joins an open transaction when nested: the outermost decides", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* platformWith(store, "ios", [])
            const outcome = yield* Effect.flip(
              store.transaction(
                Effect.gen(function* () {
                  yield* store.transaction(store.insertVersions("ios", ["1.0.0"], T0))
                  yield* store.insertVersions("ios", ["2.0.0"], T0)
                  return yield* new Boom()
                }),
              ),
            )
            expect(outcome._tag).toBe("Boom")
            expect(yield* versionsOf(store, "ios")).toEqual([])
          }),
        ))

      it("never interleaves two writing transactions", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* platformWith(store, "ios", [])
            // Each reads how many versions exist, waits, then adds the next: interleaved, both would add the same.
            const addNext = store.transaction(
              Effect.gen(function* () {
                const count = (yield* versionsOf(store, "ios"))!.length
                yield* Effect.sleep("30 millis")
                yield* store.insertVersions("ios", [`${count + 1}.0.0`], T0)
              }),
            )
            yield* Effect.all([addNext, addNext, addNext], { concurrency: "unbounded" })
            expect(yield* versionsOf(store, "ios")).toEqual(["1.0.0", "2.0.0", "3.0.0"])
          }),
        ))

      it("does not lose a write made outside while a transaction is open", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* store.insertToken(token("t1"))
            yield* platformWith(store, "ios", [])
            const started = yield* Deferred.make<void>()
            const release = yield* Deferred.make<void>()
            const open = yield* Effect.forkChild(
              store.transaction(
                Effect.gen(function* () {
                  yield* store.insertVersions("ios", ["1.0.0"], T0)
                  yield* Deferred.succeed(started, undefined)
                  yield* Deferred.await(release)
                }),
              ),
            )
            yield* Deferred.await(started)
            const touch = yield* Effect.forkChild(store.touchToken("t1", T0 + 1))
            yield* Effect.sleep("20 millis")
            yield* Deferred.succeed(release, undefined)
            yield* Fiber.join(open)
            yield* Fiber.join(touch)
            expect((yield* store.listTokens)[0]?.lastUsedAt).toBe(T0 + 1)
            expect(yield* versionsOf(store, "ios")).toEqual(["1.0.0"])
          }),
        ))
    })

    describe("tokens", () => {
      it("inserts, lists oldest first without hashes, finds by hash, touches and removes once", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* store.insertToken(token("b", { createdAt: T0 + 1, platforms: ["ios", "web"] }))
            yield* store.insertToken(token("a", { createdAt: T0 + 2 }))
            const listed = yield* store.listTokens
            expect(listed.map((record) => record.id)).toEqual(["b", "a"])
            expect(listed[0]).toEqual({
              id: "b",
              name: "token b",
              platforms: ["ios", "web"],
              hint: "cfs_…abcd",
              createdAt: T0 + 1,
              createdBy: "ada@example.com",
              lastUsedAt: undefined,
            })
            expect(listed.some((record) => "hash" in record)).toBe(false)
            expect(yield* store.findTokenByHash("hash-a")).toMatchObject({ id: "a", platforms: null })
            expect(yield* store.findTokenByHash("a")).toBeUndefined()
            yield* store.touchToken("a", T0 + 60_000)
            expect((yield* store.findTokenByHash("hash-a"))?.lastUsedAt).toBe(T0 + 60_000)
            expect((yield* store.removeToken("a"))?.hash).toBe("hash-a")
            expect(yield* store.removeToken("a")).toBeUndefined()
            expect(yield* store.findTokenByHash("hash-a")).toBeUndefined()
            expect((yield* store.listTokens).map((record) => record.id)).toEqual(["b"])
          }),
        ))
    })

    describe("audit", () => {
      it("lists newest first, pages strictly before a cursor, and keeps details", () =>
        run((store) =>
          Effect.gen(function* () {
            yield* store.appendAudit(entry("a", T0, { detail: { versions: ["1.0.0"], kind: "ios" } }))
            yield* store.appendAudit(entry("c", T0 + 1, { action: "token.create", target: "tok" }))
            yield* store.appendAudit(entry("b", T0 + 1, { action: "version.delete", target: "ios/1.0.0+b" }))
            yield* store.appendAudit(entry("d", T0 + 2, { action: "token.revoke" }))
            const all = yield* store.listAudit({ limit: 10 })
            expect(all.map((item) => item.id)).toEqual(["d", "c", "b", "a"])
            expect(all[3]).toEqual(entry("a", T0, { detail: { versions: ["1.0.0"], kind: "ios" } }))
            expect(all[2]).toEqual(entry("b", T0 + 1, { action: "version.delete", target: "ios/1.0.0+b" }))
            const first = yield* store.listAudit({ limit: 2 })
            expect(first.map((item) => item.id)).toEqual(["d", "c"])
            const second = yield* store.listAudit({ limit: 2, before: first[1] })
            expect(second.map((item) => item.id)).toEqual(["b", "a"])
            expect(yield* store.listAudit({ limit: 2, before: second[1] })).toEqual([])
          }),
        ))
    })
  })
