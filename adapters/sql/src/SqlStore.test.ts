/**
 * The helpers every SQL store is built from, on a real SQLite database: a reason is handled where it is named and
 * nowhere else, a lost conflict runs the transaction again (and only a bounded number of times), and whatever
 * `SqlError` is left becomes a defect while an outage stays `StoreUnavailable`. On Postgres, a batch statement
 * answers each call its own rows, and a call inside a transaction runs in it.
 */
import { freshPostgres, hasPostgres, onFreshSqliteStore } from "@coffer/contract"
import { StoreUnavailable } from "@coffer/kernel"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { sql } from "kysely"
import { describe, expect, it } from "vitest"
import { type Columns, callRows } from "./batchStatement.js"
import { SqlDatabase, SqlError, SqlStore } from "./index.js"
import { prepare } from "./prepared.js"

const run = onFreshSqliteStore

const user = { id: "u1", email: "ada@example.com", email_key: "ada@example.com", created_at: "2026-01-01T00:00:00Z" }
const conflict = new SqlError.SqlError({ reason: new SqlError.TransactionConflict({ message: "could not serialize" }) })

describe("SqlStore", () => {
  it("handles the named reason and lets every other failure pass", async () => {
    const outcome = await run((store) =>
      Effect.gen(function* () {
        yield* store.query((db) => db.insertInto("secrets_users").values(user).execute())
        const duplicate = yield* store
          .statement((db) => db.insertInto("secrets_users").values(user).execute())
          .pipe(SqlStore.catchReason("UniqueViolation", (reason) => Effect.succeed(`taken: ${reason._tag}`)))
        const other = yield* store
          .statement((db) => sql`select * from no_such_table`.execute(db))
          .pipe(
            SqlStore.failOn("UniqueViolation", () => "wrong"),
            Effect.flip,
          )
        return { duplicate, other }
      }),
    )
    expect(outcome.duplicate).toBe("taken: UniqueViolation")
    expect(SqlError.isSqlError(outcome.other)).toBe(true)
    expect(SqlError.hasReason("Unknown")(outcome.other)).toBe(true)
    expect(SqlError.hasReason("UniqueViolation")(outcome.other)).toBe(false)
  })

  it("runs a transaction again after a lost conflict, and rolls back each failed attempt", async () => {
    const outcome = await run((store) =>
      Effect.gen(function* () {
        let attempts = 0
        const result = yield* store.transaction(
          Effect.gen(function* () {
            attempts += 1
            yield* store.query((db) =>
              db
                .insertInto("secrets_users")
                .values({ ...user, id: `u${attempts}`, email_key: `k${attempts}` })
                .execute(),
            )
            if (attempts < 3) return yield* Effect.fail(conflict)
            return "done"
          }),
        )
        const rows = yield* store.query((db) => db.selectFrom("secrets_users").select("id").execute())
        return { attempts, result, rows: rows.map((row) => row.id) }
      }),
    )
    expect(outcome).toEqual({ attempts: 3, result: "done", rows: ["u3"] })
  })

  it("gives up after CONFLICT_RETRIES: the conflict is the caller's to name, or a defect", async () => {
    const outcome = await run((store) =>
      Effect.gen(function* () {
        let attempts = 0
        const always = Effect.suspend(() => {
          attempts += 1
          return Effect.fail(conflict)
        })
        const named = yield* store.attemptTransaction(always).pipe(
          SqlStore.failOn("TransactionConflict", () => "busy" as const),
          Effect.flip,
        )
        const settled = yield* Effect.exit(store.transaction(always))
        return { attempts, named, settled }
      }),
    )
    expect(outcome.named).toBe("busy")
    expect(outcome.attempts).toBe(2 * (SqlStore.CONFLICT_RETRIES + 1))
    expect(Exit.isFailure(outcome.settled) && Cause.hasDies(outcome.settled.cause)).toBe(true)
  })

  it("settles: a SqlError is a defect, an outage stays StoreUnavailable", async () => {
    const unavailable = new StoreUnavailable({ store: "database", message: "down" })
    const [bug, outage] = await Promise.all([
      Effect.runPromise(Effect.exit(SqlStore.settle(Effect.fail(conflict)))),
      Effect.runPromise(Effect.flip(SqlStore.settle(Effect.fail(unavailable)))),
    ])
    expect(Exit.isFailure(bug) && Cause.hasDies(bug.cause)).toBe(true)
    expect(outage).toBe(unavailable)
  })
})

/** A batch statement: each call's user, by id. */
const emails = prepare<Columns<{ id: string }>>()((db, param) =>
  db
    .selectFrom(callRows({ id: "text" }, param))
    .innerJoin("secrets_users as u", "u.id", "r.id")
    .select(["r.n", "u.email"]),
)

/** The same for one call, marked so that a test can tell which of the two answered. */
const emailAlone = prepare<{ id: string }>()((db, param) =>
  db
    .selectFrom("secrets_users as u")
    .select(sql<string>`u.email || ' (alone)'`.as("email"))
    .where("u.id", "=", param("id")),
)

describe.runIf(await hasPostgres())("SqlStore.batched on Postgres", () => {
  it("answers each call of a turn its own rows; a lone call or one in a transaction runs alone", async () => {
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        const context = yield* Layer.build(freshPostgres())
        const database = yield* Effect.provide(SqlDatabase.SqlDatabase, Layer.succeedContext(context))
        const store = SqlStore.make(database)
        const email = store.batched(emails)
        const emailOrAlone = store.batched(emails, () => emailAlone)
        const insert = (id: string, address: string) =>
          store.query((db) =>
            db
              .insertInto("secrets_users")
              .values({ ...user, id, email: address, email_key: address })
              .execute(),
          )
        yield* insert("u1", "ada@example.com")
        yield* insert("u2", "bob@example.com")
        const turn = yield* Effect.all([email({ id: "u2" }), email({ id: "u1" }), email({ id: "u3" })], {
          concurrency: "unbounded",
        })
        // The row written in the transaction is seen only from inside it: the call ran there, not in a later batch.
        const inside = yield* store
          .transaction(
            Effect.andThen(
              insert("u3", "cy@example.com"),
              Effect.andThen(email({ id: "u3" }), Effect.fail("undo" as const)),
            ),
          )
          .pipe(Effect.flip)
        const seen = yield* store.transaction(
          Effect.andThen(insert("u3", "cy@example.com"), Effect.all([email({ id: "u3" }), email({ id: "u1" })])),
        )
        // With a single-call form, a turn's only call and a call in a transaction go that way; several go together.
        const lone = yield* emailOrAlone({ id: "u1" })
        const several = yield* Effect.all([emailOrAlone({ id: "u1" }), emailOrAlone({ id: "u2" })], {
          concurrency: "unbounded",
        })
        const inTransaction = yield* store.transaction(emailOrAlone({ id: "u2" }))
        return { turn, inside, seen, lone, several, inTransaction }
      }).pipe(Effect.scoped),
    )
    expect(outcome.turn.map((rows) => rows.map((row) => row.email))).toEqual([
      ["bob@example.com"],
      ["ada@example.com"],
      [],
    ])
    expect(outcome.inside).toBe("undo")
    expect(outcome.lone.map((row) => row.email)).toEqual(["ada@example.com (alone)"])
    expect(outcome.several.map((rows) => rows.map((row) => row.email))).toEqual([
      ["ada@example.com"],
      ["bob@example.com"],
    ])
    expect(outcome.inTransaction.map((row) => row.email)).toEqual(["bob@example.com (alone)"])
    expect(outcome.seen.map((rows) => rows.map((row) => [Number(row.n), row.email]))).toEqual([
      [[1, "cy@example.com"]],
      [[1, "ada@example.com"]],
    ])
  })
})
