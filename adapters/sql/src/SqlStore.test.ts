/**
 * The helpers every SQL store is built from, on a real SQLite database: a reason is handled where it is named and
 * nowhere else, a lost conflict runs the transaction again (and only a bounded number of times), and whatever
 * `SqlError` is left becomes a defect while an outage stays `StoreUnavailable`.
 */
import { onFreshSqliteStore } from "@coffer/contract"
import { StoreUnavailable } from "@coffer/kernel"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { sql } from "kysely"
import { describe, expect, it } from "vitest"
import { SqlError, SqlStore } from "./index.js"

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
