/**
 * What the SQL stores count, on a real SQLite database: each failed statement under its reason, and each
 * transaction run again after a lost conflict (not the first run, and not one that succeeds at once).
 */
import { freshSqlite } from "@coffer/contract"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import { sql } from "kysely"
import { describe, expect, it } from "vitest"
import { SqlDatabase, SqlError, SqlStore } from "./index.js"

const user = { id: "u1", email: "ada@example.com", email_key: "ada@example.com", created_at: "2026-01-01T00:00:00Z" }
const conflict = new SqlError.SqlError({ reason: new SqlError.TransactionConflict({ message: "could not serialize" }) })

/** The counters' values after `test`, by metric id and attributes. */
const countsAfter = async (test: (store: SqlStore.SqlStore) => Effect.Effect<unknown, unknown>) => {
  const registry: Metric.MetricRegistry = new Map()
  await Effect.runPromise(
    Effect.gen(function* () {
      const context = yield* Layer.build(freshSqlite())
      const database = yield* Effect.provide(SqlDatabase.SqlDatabase, Layer.succeedContext(context))
      yield* test(SqlStore.make(database))
    }).pipe(Effect.scoped, Effect.provideService(Metric.MetricRegistry, registry)),
  )
  return Object.fromEntries(
    Metric.snapshotUnsafe(Context.make(Metric.MetricRegistry, registry)).map((metric) => [
      `${metric.id}${JSON.stringify(metric.attributes ?? {})}`,
      (metric.state as Metric.CounterState<number>).count,
    ]),
  )
}

describe("SqlMetrics", () => {
  it("counts failed statements by reason and transactions run again", async () => {
    const counts = await countsAfter((store) =>
      Effect.gen(function* () {
        yield* store.query((db) => db.insertInto("secrets_users").values(user).execute())
        yield* Effect.exit(store.statement((db) => db.insertInto("secrets_users").values(user).execute()))
        yield* Effect.exit(store.statement((db) => sql`select * from no_such_table`.execute(db)))
        let attempts = 0
        yield* store.transaction(
          Effect.suspend(() => (++attempts < 3 ? Effect.fail(conflict) : Effect.succeed("done"))),
        )
        yield* store.transaction(Effect.succeed("at once"))
      }),
    )
    expect(counts).toEqual({
      'coffer_store_errors_total{"reason":"UniqueViolation"}': 1,
      'coffer_store_errors_total{"reason":"Unknown"}': 1,
      "coffer_store_transactions_retried_total{}": 2,
    })
  })
})
