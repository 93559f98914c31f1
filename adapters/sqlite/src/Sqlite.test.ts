/**
 * The SQLite dialect against the SQL foundation contract, in memory and on a file, plus what only SQLite does:
 * opening (and failing to open) a file, and reporting a closed database as unavailable.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { migrate, SqlDatabase } from "@coffer/adapter-sql"
import { migrationSuite } from "@coffer/contract"
import { Effect } from "effect"
import { sql } from "kysely"
import { afterAll, describe, expect, it } from "vitest"
import { Sqlite } from "./index.js"

const dir = mkdtempSync(join(tmpdir(), "coffer-sqlite-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let files = 0
const freshFile = () => join(dir, `nested-${++files}`, "coffer.db")

migrationSuite("sqlite :memory:", () => Sqlite.layer({ filename: ":memory:" }))
migrationSuite("sqlite file", () => Sqlite.layer({ filename: freshFile() }))

describe("Sqlite.layer", () => {
  it("creates the parent directory, uses WAL, enforces foreign keys, and keeps data across reopenings", async () => {
    const filename = freshFile()
    const settings = await Effect.runPromise(
      Effect.gen(function* () {
        yield* migrate
        yield* SqlDatabase.query((db) => db.insertInto("coffer_meta").values({ key: "kept", value: "yes" }).execute())
        const pragma = (name: string) =>
          SqlDatabase.query((db) => sql<Record<string, unknown>>`pragma ${sql.raw(name)}`.execute(db)).pipe(
            Effect.map((result) => Object.values(result.rows[0] ?? {})[0]),
          )
        return { journal: yield* pragma("journal_mode"), foreignKeys: yield* pragma("foreign_keys") }
      }).pipe(Effect.provide(Sqlite.layer({ filename }))),
    )
    expect(settings).toEqual({ journal: "wal", foreignKeys: 1 })

    const reopened = await Effect.runPromise(
      Effect.gen(function* () {
        const applied = yield* migrate
        const kept = yield* SqlDatabase.query((db) =>
          db.selectFrom("coffer_meta").select("value").where("key", "=", "kept").executeTakeFirst(),
        )
        return { applied, kept: kept?.value }
      }).pipe(Effect.provide(Sqlite.layer({ filename }))),
    )
    expect(reopened).toEqual({ applied: [], kept: "yes" })
  })

  it("fails to build with StoreUnavailable when the directory cannot be created", async () => {
    const blocker = join(dir, "a-file")
    writeFileSync(blocker, "not a directory")
    const error = await Effect.runPromise(
      Effect.flip(Effect.provide(SqlDatabase.ping, Sqlite.layer({ filename: join(blocker, "coffer.db") }))),
    )
    expect(error._tag).toBe("StoreUnavailable")
    expect(error.store).toBe("database")
  })

  it("reports a closed database as StoreUnavailable", async () => {
    const errors = await Effect.runPromise(
      Effect.gen(function* () {
        const database = yield* SqlDatabase.SqlDatabase
        yield* database.ping
        yield* Effect.promise(() => database.db.destroy())
        return {
          ping: yield* Effect.flip(database.ping),
          query: yield* Effect.flip(database.query((db) => db.selectFrom("coffer_meta").selectAll().execute())),
        }
      }).pipe(Effect.provide(Sqlite.layer({ filename: freshFile() }))),
    )
    expect(errors.ping._tag).toBe("StoreUnavailable")
    expect(errors.query._tag).toBe("StoreUnavailable")
  })
})
