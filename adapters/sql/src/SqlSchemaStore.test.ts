/**
 * The SQL schema store against the SchemaStore contract, on SQLite in memory and in a file, and on Postgres (a database of its
 * own per test), plus what only SQL can get wrong: how many statements a batch lookup costs, and an unreachable
 * database reading as `StoreUnavailable`, never as "not found".
 */
import { freshPostgres, freshSqlite, freshSqliteFile, hasPostgres, schemaStoreSuite } from "@coffer/contract"
import { SchemaStore } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import { SqlDatabase } from "./index.js"
import * as SqlSchemaStore from "./SqlSchemaStore.js"

const storeOn = (database: Layer.Layer<SqlDatabase.SqlDatabase, unknown>) =>
  SqlSchemaStore.layer.pipe(Layer.provide(database))

schemaStoreSuite("sqlite", () => storeOn(freshSqlite()))
schemaStoreSuite("sqlite file", () => storeOn(freshSqliteFile()))
describe.runIf(await hasPostgres())("postgres", () => {
  schemaStoreSuite("postgres", () => storeOn(freshPostgres()))
})

describe("SqlSchemaStore", () => {
  /** The store on a database whose statements are counted. */
  const counted = Effect.gen(function* () {
    const database = yield* SqlDatabase.SqlDatabase
    let statements = 0
    const counting: SqlDatabase.Service = {
      ...database,
      query: (run) =>
        Effect.suspend(() => {
          statements++
          return database.query(run)
        }),
    }
    const store = yield* Effect.provideService(SqlSchemaStore.make, SqlDatabase.SqlDatabase, counting)
    return {
      store,
      count: <A, E>(effect: Effect.Effect<A, E>) =>
        Effect.gen(function* () {
          const before = statements
          const value = yield* effect
          return { value, statements: statements - before }
        }),
    }
  })

  it("loads platforms and edges in a fixed number of statements, whatever the number of names", async () => {
    const result = await Effect.runPromise(
      Effect.gen(function* () {
        const { store, count } = yield* counted
        for (let i = 0; i < 120; i++) {
          yield* store.insertPlatform(`p${i}`, undefined, 0)
          yield* store.insertVersions(`p${i}`, ["1.0.0", "2.0.0"], 0)
          yield* store.saveSchema({
            platform: `p${i}`,
            version: "1.0.0",
            content: {},
            dependencies: [`p${(i + 1) % 120}/1.0.0`],
            output: {},
            sources: [],
            savedBy: "a",
            savedAt: 0,
          })
        }
        const names = Array.from({ length: 120 }, (_, i) => `p${i}`)
        return {
          few: yield* count(store.loadPlatforms(names.slice(0, 2))),
          many: yield* count(store.loadPlatforms(names)),
          edges: yield* count(store.dependentsOf(names)),
        }
      }).pipe(Effect.provide(freshSqlite())),
    )
    expect(result.many.value.size).toBe(120)
    expect(result.many.statements).toBe(result.few.statements)
    expect(result.many.statements).toBeLessThanOrEqual(2)
    expect(result.edges.value).toHaveLength(120)
    expect(result.edges.statements).toBe(1)
  })

  it("answers a platform's overview in one statement, whatever the number of versions", async () => {
    const result = await Effect.runPromise(
      Effect.gen(function* () {
        const { store, count } = yield* counted
        const versions = Array.from({ length: 150 }, (_, i) => `1.0.${i}`)
        yield* store.insertPlatform("ios", undefined, 0)
        yield* store.insertVersions("ios", versions, 0)
        for (const version of versions.slice(0, 100)) {
          const write = { platform: "ios", version, content: {}, output: {}, sources: [], savedBy: "a", savedAt: 0 }
          yield* store.saveSchema({ ...write, dependencies: ["base"] })
          yield* store.saveSchema({ ...write, dependencies: [] })
        }
        return yield* count(store.platformOverview("ios"))
      }).pipe(Effect.provide(freshSqlite())),
    )
    expect(result.statements).toBe(1)
    expect(result.value?.summaries).toHaveLength(150)
    expect(result.value?.summaries.filter((summary) => summary.schema?.revision === 2)).toHaveLength(100)
  })

  it("writes a cascade's outputs in a few batched statements, each row its own output, schemas only", async () => {
    const result = await Effect.runPromise(
      Effect.gen(function* () {
        const { store, count } = yield* counted
        yield* store.insertPlatform("p", undefined, 0)
        const versions = Array.from({ length: 600 }, (_, i) => `1.0.${i}`)
        yield* store.insertVersions("p", [...versions, "9.0.0"], 0)
        for (const version of versions) {
          yield* store.saveSchema({
            platform: "p",
            version,
            content: { version },
            dependencies: [],
            output: {},
            sources: [],
            savedBy: "a",
            savedAt: 0,
          })
        }
        const writes = [...versions, "9.0.0"].map((version, i) => ({
          platform: "p",
          version,
          output: { i, text: `it's "${version}"` },
          sources: ["p", "q", "p"],
        }))
        const written = yield* count(store.saveOutputs(writes))
        const read = yield* Effect.forEach(["1.0.0", "1.0.599", "9.0.0"], (version) =>
          store.findSchema({ platform: "p", version }),
        )
        return { statements: written.statements, read }
      }).pipe(Effect.provide(freshSqlite())),
    )
    // 601 rows in chunks of 250, inside one transaction (begin and commit are not counted as statements).
    expect(result.statements).toBe(3)
    expect(result.read[0]).toMatchObject({ output: { i: 0, text: `it's "1.0.0"` }, sources: ["p", "q"] })
    expect(result.read[1]).toMatchObject({ output: { i: 599, text: `it's "1.0.599"` } })
    // A version without a schema stays without one.
    expect(result.read[2]).toBeUndefined()
  })

  it("reads a revision saved before migration 0005 kept outputs as one without an output", async () => {
    const found = await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* SchemaStore
        yield* store.insertPlatform("ios", undefined, 0)
        yield* store.insertVersions("ios", ["1.0.0"], 0)
        yield* SqlDatabase.query((db) =>
          db
            .insertInto("schemas_revisions")
            .values({
              platform: "ios",
              version: "1.0.0",
              revision: 1,
              content: '{"old":true}',
              output: null,
              saved_at: new Date(0).toISOString(),
              saved_by: "a",
            })
            .execute(),
        )
        return yield* store.findRevision({ platform: "ios", version: "1.0.0" }, 1)
      }).pipe(Effect.provide(Layer.provideMerge(SqlSchemaStore.layer, freshSqlite()))),
    )
    expect(found).toEqual({ revision: 1, content: { old: true }, output: undefined, savedBy: "a", savedAt: 0 })
  })

  it("reports a closed database as StoreUnavailable, never as a missing platform", async () => {
    const error = await Effect.runPromise(
      Effect.gen(function* () {
        const database = yield* SqlDatabase.SqlDatabase
        const store = yield* SchemaStore
        yield* Effect.promise(() => database.db.destroy())
        return yield* Effect.flip(store.findPlatform("ios"))
      }).pipe(Effect.provide(Layer.provideMerge(SqlSchemaStore.layer, freshSqlite()))),
    )
    expect(error._tag).toBe("StoreUnavailable")
  })
})
