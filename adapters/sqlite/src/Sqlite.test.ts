/**
 * The SQLite dialect against the SQL foundation contract, in memory and on a file, plus what only SQLite does:
 * opening (and failing to open) a file, and reporting a closed database as unavailable.
 */
import { spawn } from "node:child_process"
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { migrate, SqlDatabase } from "@coffer/adapter-sql"
import { migrationSuite } from "@coffer/contract"
import * as Effect from "effect/Effect"
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
        return {
          journal: yield* pragma("journal_mode"),
          foreignKeys: yield* pragma("foreign_keys"),
          walPages: yield* pragma("wal_autocheckpoint"),
        }
      }).pipe(Effect.provide(Sqlite.layer({ filename }))),
    )
    expect(settings).toEqual({ journal: "wal", foreignKeys: 1, walPages: Sqlite.WAL_AUTOCHECKPOINT_PAGES })

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

  it("makes a new file, its write-ahead log and a new directory for it readable by their owner alone", async () => {
    const filename = join(dir, `private-${++files}`, "deeper", "coffer.db")
    const modes = await Effect.runPromise(
      Effect.gen(function* () {
        yield* migrate
        yield* SqlDatabase.query((db) => db.insertInto("coffer_meta").values({ key: "kept", value: "yes" }).execute())
        const mode = (path: string) => statSync(path).mode & 0o777
        return {
          file: mode(filename),
          wal: mode(`${filename}-wal`),
          shm: mode(`${filename}-shm`),
          directory: mode(join(filename, "..")),
          parent: mode(join(filename, "..", "..")),
        }
      }).pipe(Effect.provide(Sqlite.layer({ filename }))),
    )
    expect(modes).toEqual({ file: 0o600, wal: 0o600, shm: 0o600, directory: 0o700, parent: 0o700 })
  })

  it("leaves the permissions of a file that exists as its operator set them", async () => {
    const filename = join(dir, `shared-${++files}`, "coffer.db")
    mkdirSync(join(filename, ".."))
    writeFileSync(filename, "")
    chmodSync(filename, 0o640)
    await Effect.runPromise(migrate.pipe(Effect.provide(Sqlite.layer({ filename }))))
    expect(statSync(filename).mode & 0o777).toBe(0o640)
  })

  it("applies the checkpoint interval, durability and lock wait asked for", async () => {
    const pragma = (name: string) =>
      SqlDatabase.query((db) => sql<Record<string, unknown>>`pragma ${sql.raw(name)}`.execute(db)).pipe(
        Effect.map((result) => Object.values(result.rows[0] ?? {})[0]),
      )
    const read = Effect.all({
      walPages: pragma("wal_autocheckpoint"),
      synchronous: pragma("synchronous"),
      busyTimeoutMs: pragma("busy_timeout"),
    })
    const asked = await Effect.runPromise(
      read.pipe(
        Effect.provide(
          Sqlite.layer({
            filename: freshFile(),
            walAutocheckpointPages: 2_500,
            synchronous: "full",
            busyTimeoutMs: 750,
          }),
        ),
      ),
    )
    // SQLite reports synchronous as a number: 1 NORMAL, 2 FULL.
    expect(asked).toEqual({ walPages: 2_500, synchronous: 2, busyTimeoutMs: 750 })
    const defaults = await Effect.runPromise(read.pipe(Effect.provide(Sqlite.layer({ filename: freshFile() }))))
    expect(defaults).toEqual({
      walPages: Sqlite.WAL_AUTOCHECKPOINT_PAGES,
      synchronous: 1,
      busyTimeoutMs: Sqlite.BUSY_TIMEOUT_MS,
    })
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

  it("lets a transaction that reads and then writes wait for another process's write instead of failing", async () => {
    // Another process (an operator's `coffer keys rotate` beside the service) writes while a transaction of this
    // one has read and not yet written: begun IMMEDIATE, the transaction holds the write lock and the other
    // process waits its turn; begun DEFERRED, the other would commit first and this transaction fail with SQLITE_BUSY.
    const filename = freshFile()
    const driver = createRequire(import.meta.url).resolve("better-sqlite3")
    /** The other process; `wrote` settles once its insert committed, `exit` with its exit code. */
    const otherProcess = () => {
      const script = `const D = require(${JSON.stringify(driver)}); const db = new D(${JSON.stringify(filename)});
        db.pragma("busy_timeout = 5000"); db.prepare("insert into coffer_meta (key, value) values ('other', 'x')").run();
        process.stdout.write("wrote")`
      const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "ignore"] })
      const wrote = new Promise<void>((done) => child.stdout.on("data", () => done()))
      const exit = new Promise<number | null>((done) => child.on("exit", done))
      return { wrote, exit }
    }
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        yield* migrate
        let other: ReturnType<typeof otherProcess> | undefined
        yield* SqlDatabase.withTransaction(
          Effect.gen(function* () {
            yield* SqlDatabase.query((db) => db.selectFrom("coffer_meta").selectAll().execute())
            other = otherProcess()
            // Until the other process wrote (it cannot while this transaction holds the lock), or long enough.
            yield* Effect.promise(() => Promise.race([other!.wrote, new Promise((done) => setTimeout(done, 2_000))]))
            yield* SqlDatabase.query((db) => db.insertInto("coffer_meta").values({ key: "mine", value: "y" }).execute())
          }),
        )
        const code = yield* Effect.promise(() => other!.exit)
        const keys = yield* SqlDatabase.query((db) =>
          db.selectFrom("coffer_meta").select("key").where("key", "in", ["mine", "other"]).orderBy("key").execute(),
        )
        return { code, keys: keys.map((row) => row.key) }
      }).pipe(Effect.provide(Sqlite.layer({ filename }))),
    )
    expect(outcome).toEqual({ code: 0, keys: ["mine", "other"] })
  })
})
