/**
 * What every SQL store is built from, so that all of them treat the database the same way:
 *
 * - `catchReason` handles one reason of a failed statement (a unique violation becomes "already exists", a
 *   foreign-key violation "the parent is gone", a lost serialization "try again") and lets every other failure
 *   pass on;
 * - `transaction` runs an effect all or nothing, and runs it again when the database reports that it lost
 *   against a concurrent transaction (Postgres serialization failure or deadlock);
 * - `settle` is the one way a store's failure reaches its port: an outage is already `StoreUnavailable` (see
 *   `SqlError.fromCause`), and any `SqlError` left is a bug in a query or a schema mismatch, so it becomes a
 *   defect (500 without detail), never a wrong answer.
 *
 * A store runs statements with `statement` when it wants to handle a reason, or `query` when no reason is an
 * expected outcome. No store looks at `_tag` itself.
 */
import type { StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type { Kysely, QueryResult } from "kysely"
import { type Columns, columnsOf, type Numbered, rowsByCall } from "./batchStatement.js"
import type { Prepared } from "./prepared.js"
import * as SqlDatabase from "./SqlDatabase.js"
import { hasReason, isSqlError, type ReasonOf, type ReasonTag, type SqlError } from "./SqlError.js"
import * as SqlMetrics from "./SqlMetrics.js"
import type { Tables } from "./Tables.js"
import { turnBatch } from "./turnBatch.js"

/** How often a transaction that lost a serialization conflict or a deadlock is run again. */
export const CONFLICT_RETRIES = 5

/** Every `SqlError` becomes a defect; `StoreUnavailable` and the effect's other errors pass. */
export const settle = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError>, R> =>
  Effect.catch(effect, (error) => (isSqlError(error) ? Effect.die(error) : Effect.fail(error))) as Effect.Effect<
    A,
    Exclude<E, SqlError>,
    R
  >

/** A `SqlError` with one of `reasons` is handled by `onReason`; every other failure passes unchanged. */
export const catchReason =
  <K extends ReasonTag, A2, E2, R2>(reason: K, onReason: (reason: ReasonOf<K>) => Effect.Effect<A2, E2, R2>) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A | A2, E | E2, R | R2> =>
    Effect.catch(
      effect,
      (error): Effect.Effect<A2, E | E2, R2> =>
        hasReason(reason)(error) ? onReason(error.reason) : Effect.fail(error),
    )

/** A `SqlError` with this reason fails with `onReason()` instead: the port's own error for it. */
export const failOn = <K extends ReasonTag, E2>(reason: K, onReason: () => E2) =>
  catchReason(reason, () => Effect.fail(onReason()))

export interface SqlStore {
  readonly database: SqlDatabase.Service
  /** One statement, its `SqlError` kept for `catchReason`. */
  readonly statement: <A>(run: (db: Kysely<Tables>) => Promise<A>) => Effect.Effect<A, SqlError | StoreUnavailable>
  /** A prepared statement (`./prepared.ts`), its `SqlError` kept; synchronous where the dialect can (`./SyncLane.ts`). */
  readonly run: <P, R>(
    statement: Prepared<P, R>,
    params: P,
  ) => Effect.Effect<QueryResult<R>, SqlError | StoreUnavailable>
  /** `run`, its first row. */
  readonly first: <P, R>(
    statement: Prepared<P, R>,
    params: P,
  ) => Effect.Effect<R | undefined, SqlError | StoreUnavailable>
  /**
   * A statement over many calls (`./batchStatement.ts`, Postgres) as a single call answering that call's rows: the
   * calls of one turn run as one statement (`./turnBatch.ts`). A turn's only call, a call run alone after its batch
   * failed, and a call made inside a transaction (which runs in it at once) run `alone(params)` instead when it is
   * given: the same statement for one call, which Postgres plans in a fraction of a batch statement's time.
   */
  readonly batched: <P extends object, R>(
    statement: Prepared<Columns<P>, R & Numbered>,
    alone?: (params: P) => Prepared<P, R>,
  ) => (params: P) => Effect.Effect<Array<R>, SqlError | StoreUnavailable>
  /** One statement with no expected failure: `settle`d. */
  readonly query: <A>(run: (db: Kysely<Tables>) => Promise<A>) => Effect.Effect<A, StoreUnavailable>
  /**
   * `effect` in one transaction, run again (up to `CONFLICT_RETRIES` times) while it loses a conflict. Its
   * `SqlError`s are kept, so that a reason can be handled once the transaction is over (a conflict that outlasted
   * the retries, say, or a violation whose answer needs a fresh read).
   */
  readonly attemptTransaction: <A, E, R>(
    effect: Effect.Effect<A, E, R>,
  ) => Effect.Effect<A, E | SqlError | StoreUnavailable, Exclude<R, SqlDatabase.SqlDatabase>>
  /** `attemptTransaction`, `settle`d. */
  readonly transaction: <A, E, R>(
    effect: Effect.Effect<A, E, R>,
  ) => Effect.Effect<A, Exclude<E, SqlError> | StoreUnavailable, Exclude<R, SqlDatabase.SqlDatabase>>
}

/** The helpers over one database. */
export const make = (database: SqlDatabase.Service): SqlStore => {
  const attemptTransaction: SqlStore["attemptTransaction"] = (effect) =>
    // `Effect.retry` tells each run its attempt number: every run after the first is a transaction run again.
    Effect.flatMap(Schedule.CurrentMetadata, ({ attempt }) => (attempt > 0 ? SqlMetrics.countRetry : Effect.void)).pipe(
      Effect.andThen(database.withTransaction(effect)),
      Effect.retry({ times: CONFLICT_RETRIES, while: hasReason("TransactionConflict") }),
    )
  const run: SqlStore["run"] = (statement, params) =>
    database.execute((db) => statement.compile(db, params), statement.name)
  const batched = <P extends object, R>(
    statement: Prepared<Columns<P>, R & Numbered>,
    alone?: (params: P) => Prepared<P, R>,
  ) => {
    const runOne = (params: P): Effect.Effect<Array<R>, SqlError | StoreUnavailable> =>
      alone === undefined
        ? Effect.map(run(statement, columnsOf([params])), (result) => result.rows)
        : Effect.map(run(alone(params), params), (result) => result.rows)
    const runAll = (calls: ReadonlyArray<P>) =>
      calls.length === 1
        ? Effect.map(runOne(calls[0]!), (rows) => [rows])
        : Effect.map(
            run(statement, columnsOf(calls)),
            (result): Array<Array<R>> => rowsByCall(result.rows, calls.length),
          )
    const call = turnBatch(runAll)
    return (params: P) => Effect.flatMap(database.inTransaction, (inside) => (inside ? runOne(params) : call(params)))
  }
  return {
    database,
    statement: database.query,
    run,
    batched,
    first: (statement, params) => Effect.map(run(statement, params), (result) => result.rows[0]),
    query: (run) => settle(database.query(run)),
    attemptTransaction,
    transaction: (effect) => settle(attemptTransaction(effect)),
  }
}

/** The helpers over the `SqlDatabase` in context. */
export const current: Effect.Effect<SqlStore, never, SqlDatabase.SqlDatabase> = Effect.map(
  SqlDatabase.SqlDatabase,
  make,
)
