/**
 * The better-sqlite3 driver's lane: the lock it shares with Kysely's callers, statements run synchronously when the
 * connection is free, a transaction on the lane that awaits keeping everyone else out until it ends, and the
 * transactions of one turn sharing a commit that none of them answers before (group commit).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { migrate, SqlDatabase } from "@coffer/adapter-sql"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { sql } from "kysely"
import { afterAll, describe, expect, it } from "vitest"
import { Sqlite } from "./index.js"
import { Lock } from "./lock.js"

const dir = mkdtempSync(join(tmpdir(), "coffer-sqlite-driver-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0
const nextFile = () => join(dir, `lane-${++files}.db`)
const layer = (filename = nextFile()) => Sqlite.layer({ filename })

/** The `lane:` keys another connection to `filename` finds: what has been committed. */
const committedKeys = (filename: string) => {
  const observer = new Database(filename, { readonly: true })
  try {
    return observer
      .prepare("select key from coffer_meta where key like 'lane:%' order by key")
      .all()
      .map((row) => (row as { key: string }).key)
  } finally {
    observer.close()
  }
}

describe("Lock", () => {
  it("is taken at once only when nobody holds it or waits for it, and is handed to waiters in order", async () => {
    const lock = new Lock()
    expect(lock.tryLock()).toBe(true)
    expect(lock.tryLock()).toBe(false)
    const order: Array<string> = []
    const first = lock.lock().then(() => order.push("first"))
    const second = lock.lock().then(() => order.push("second"))
    lock.unlock()
    // Handed to the first waiter: still held, and a caller that cannot wait does not jump the queue.
    expect(lock.tryLock()).toBe(false)
    await first
    lock.unlock()
    await second
    lock.unlock()
    expect(order).toEqual(["first", "second"])
    expect(lock.tryLock()).toBe(true)
  })
})

const insertMeta = (key: string) =>
  SqlDatabase.SqlDatabase.pipe(
    Effect.flatMap((database) =>
      database.execute((db) => db.insertInto("coffer_meta").values({ key, value: "v" }).compile()),
    ),
  )

const keys = SqlDatabase.query((db) =>
  db.selectFrom("coffer_meta").select("key").where("key", "like", "lane:%").orderBy("key").execute(),
).pipe(Effect.map((rows) => rows.map((row) => row.key)))

describe("the SQLite lane", () => {
  it("runs a compiled statement synchronously when the connection is free", async () => {
    const exit = await Effect.runPromise(
      Effect.gen(function* () {
        yield* migrate
        const database = yield* SqlDatabase.SqlDatabase
        // runSync throws on anything that would have to wait: the statement ran without a promise.
        return Effect.runSyncExit(
          database.execute((db) => db.insertInto("coffer_meta").values({ key: "lane:sync", value: "v" }).compile()),
        )
      }).pipe(Effect.provide(layer())),
    )
    expect(Exit.isSuccess(exit)).toBe(true)
  })

  it("keeps other callers out of a transaction on the lane while it awaits, and rolls back only its own work", async () => {
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        yield* migrate
        const events: Array<string> = []
        const transaction = yield* Effect.forkChild(
          SqlDatabase.withTransaction(
            Effect.gen(function* () {
              yield* insertMeta("lane:inside")
              // Kysely on the transaction's connection, then a real wait: the connection stays this transaction's.
              yield* SqlDatabase.query((db) =>
                db.insertInto("coffer_meta").values({ key: "lane:inside-kysely", value: "v" }).execute(),
              )
              yield* Effect.sleep("50 millis")
              events.push("transaction failing")
              return yield* Effect.fail("rolled back on purpose" as const)
            }),
          ),
        )
        yield* Effect.sleep("10 millis")
        const outside = yield* Effect.forkChild(
          Effect.andThen(
            insertMeta("lane:outside"),
            Effect.sync(() => events.push("outside written")),
          ),
        )
        const failed = yield* Effect.flip(Fiber.join(transaction))
        yield* Fiber.join(outside)
        return { failed, events, keys: yield* keys }
      }).pipe(Effect.provide(layer())),
    )
    expect(outcome).toEqual({
      failed: "rolled back on purpose",
      // The statement from outside waited for the transaction to end rather than joining it.
      events: ["transaction failing", "outside written"],
      keys: ["lane:outside"],
    })
  })

  it("commits a transaction on the lane with its Kysely statements and its compiled ones", async () => {
    const committed = await Effect.runPromise(
      Effect.gen(function* () {
        yield* migrate
        yield* SqlDatabase.withTransaction(
          Effect.andThen(
            insertMeta("lane:a"),
            SqlDatabase.query((db) => db.insertInto("coffer_meta").values({ key: "lane:b", value: "v" }).execute()),
          ),
        )
        return yield* keys
      }).pipe(Effect.provide(layer())),
    )
    expect(committed).toEqual(["lane:a", "lane:b"])
  })
})

describe("group commit on the SQLite lane", () => {
  it("lets the transactions of one turn share one commit, and answers none of them before it", async () => {
    const filename = nextFile()
    const seen = await Effect.runPromise(
      Effect.gen(function* () {
        yield* migrate
        const seenAtAnswer: Array<ReadonlyArray<string>> = []
        // Begun in the same turn; each records what another connection finds committed the moment it answers.
        yield* Effect.all(
          ["lane:1", "lane:2", "lane:3"].map((key) =>
            SqlDatabase.withTransaction(insertMeta(key)).pipe(
              Effect.andThen(Effect.sync(() => seenAtAnswer.push(committedKeys(filename)))),
            ),
          ),
          { concurrency: "unbounded" },
        )
        return seenAtAnswer
      }).pipe(Effect.provide(layer(filename))),
    )
    // Had each committed alone, the first to answer would have found only its own row.
    expect(seen).toEqual([
      ["lane:1", "lane:2", "lane:3"],
      ["lane:1", "lane:2", "lane:3"],
      ["lane:1", "lane:2", "lane:3"],
    ])
  })

  it("reads committed data only, at once, while the turn's transaction is open", async () => {
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        yield* migrate
        const database = yield* SqlDatabase.SqlDatabase
        const read = database.execute((db) =>
          db.selectFrom("coffer_meta").select("key").where("key", "=", "lane:pending").compile(),
        )
        const writing = yield* Effect.forkChild(SqlDatabase.withTransaction(insertMeta("lane:pending")), {
          startImmediately: true,
        })
        // The transaction has written and waits for the turn's commit: a read neither waits nor sees its row.
        const during = Effect.runSyncExit(read)
        yield* Fiber.join(writing)
        const after = yield* read
        return { during, after: after.rows }
      }).pipe(Effect.provide(layer())),
    )
    expect(Exit.isSuccess(outcome.during) && outcome.during.value.rows).toEqual([])
    expect(outcome.after).toEqual([{ key: "lane:pending" }])
  })

  it("undoes a failing transaction alone, keeping the others of its turn", async () => {
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        yield* migrate
        const exits = yield* Effect.all(
          [
            SqlDatabase.withTransaction(insertMeta("lane:a")),
            SqlDatabase.withTransaction(
              Effect.andThen(insertMeta("lane:b"), Effect.fail("rolled back on purpose" as const)),
            ),
            SqlDatabase.withTransaction(insertMeta("lane:c")),
          ].map((transaction) => Effect.exit(transaction)),
          { concurrency: "unbounded" },
        )
        return { failed: exits.map(Exit.isFailure), keys: yield* keys }
      }).pipe(Effect.provide(layer())),
    )
    expect(outcome).toEqual({ failed: [false, true, false], keys: ["lane:a", "lane:c"] })
  })

  it("fails every transaction of a turn whose commit fails, keeping none of their work, and goes on after", async () => {
    const filename = nextFile()
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        yield* migrate
        // A deferred foreign key is checked at the commit, not at the insert: the shared commit is what fails.
        yield* SqlDatabase.query(async (db) => {
          await sql`create table lane_parent (id text primary key)`.execute(db)
          await sql`create table lane_child (id text primary key, parent text references lane_parent (id) deferrable initially deferred)`.execute(
            db,
          )
        })
        const exits = yield* Effect.all(
          [
            SqlDatabase.withTransaction(
              Effect.flatMap(SqlDatabase.SqlDatabase, (database) =>
                database.execute((db) => sql`insert into lane_child values ('c', 'missing')`.compile(db)),
              ),
            ),
            SqlDatabase.withTransaction(insertMeta("lane:beside")),
          ].map((transaction) => Effect.exit(transaction)),
          { concurrency: "unbounded" },
        )
        const afterwards = yield* Effect.exit(SqlDatabase.withTransaction(insertMeta("lane:afterwards")))
        return {
          failed: exits.map(Exit.isFailure),
          reasons: exits.map((exit) => (Exit.isFailure(exit) ? String(exit.cause) : "")),
          afterwards: Exit.isSuccess(afterwards),
          children: yield* SqlDatabase.query((db) => sql`select id from lane_child`.execute(db)),
        }
      }).pipe(Effect.provide(layer(filename))),
    )
    expect(outcome.failed).toEqual([true, true])
    // The one beside failed for the other's broken row: nothing of the turn was kept.
    for (const reason of outcome.reasons) expect(reason).toMatch(/FOREIGN KEY/i)
    expect(outcome.afterwards).toBe(true)
    expect(outcome.children.rows).toEqual([])
    expect(committedKeys(filename)).toEqual(["lane:afterwards"])
  })

  it("commits each transaction as it ends in memory, where no second connection can read", async () => {
    const exit = await Effect.runPromise(
      Effect.gen(function* () {
        yield* migrate
        const database = yield* SqlDatabase.SqlDatabase
        // runSync throws on anything that would have to wait: nothing waits for the end of the turn.
        return Effect.runSyncExit(database.withTransaction(insertMeta("lane:memory")))
      }).pipe(Effect.provide(Sqlite.layer({ filename: ":memory:" }))),
    )
    expect(Exit.isSuccess(exit)).toBe(true)
  })
})
