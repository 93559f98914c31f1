/**
 * The better-sqlite3 driver's lane: the lock it shares with Kysely's callers, statements run synchronously when the
 * connection is free, and a transaction on the lane that awaits keeping everyone else out until it ends.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { migrate, SqlDatabase } from "@coffer/adapter-sql"
import { Effect, Exit, Fiber } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { Lock } from "./driver.js"
import { Sqlite } from "./index.js"

const dir = mkdtempSync(join(tmpdir(), "coffer-sqlite-driver-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0
const layer = () => Sqlite.layer({ filename: join(dir, `lane-${++files}.db`) })

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
