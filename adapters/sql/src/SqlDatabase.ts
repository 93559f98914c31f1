/**
 * The storage foundation both SQL dialects share: a `SqlDatabase` service holding one Kysely instance, a way
 * to run a query as an Effect with every driver error classified (`SqlError` or `StoreUnavailable`), and
 * transactions bridged into Effect so that a use case can make several store calls all or nothing.
 *
 * How transactions reach the stores: a store is built once and keeps the `SqlDatabase` it was built with, so
 * replacing the service in the context would not reach it. Instead `withTransaction` records the open Kysely
 * transaction in a fiber-local reference, and `query` looks there first. Every store call made by the effect
 * (and by fibers it forks) therefore runs inside the transaction, wherever the store was constructed. Inside
 * the transaction the `SqlDatabase` service itself is also replaced, so code that reads `db` at call time
 * gets the transaction too.
 *
 * Where the dialect offers a `SyncLane` (SQLite), a transaction, or a compiled statement run outside one, runs at
 * once and synchronously when the lane can take it (`./SyncLane.ts`); otherwise it waits for the connection
 * through Kysely, as on Postgres. A transaction on the lane answers once the database transaction it joined has
 * committed.
 */
import { Readiness, StoreUnavailable } from "@coffer/kernel"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type { CompiledQuery, Kysely, QueryResult } from "kysely"
import { sql } from "kysely"
import * as SqlError from "./SqlError.js"
import * as SqlMetrics from "./SqlMetrics.js"
import type { LaneMember, SyncLane } from "./SyncLane.js"
import type { Tables } from "./Tables.js"

export type Dialect = "sqlite" | "postgres"

export interface Service {
  /**
   * The Kysely instance. Outside `withTransaction` it is the database; in the service seen inside
   * `withTransaction` it is the transaction. Prefer `query`: a `db` captured earlier does not follow a
   * transaction opened later (and on SQLite, using it inside one waits forever for the single connection).
   */
  readonly db: Kysely<Tables>
  readonly dialect: Dialect
  /** Succeeds when a trivial statement runs; fails with `StoreUnavailable` otherwise (for `/readyz`). */
  readonly ping: Effect.Effect<void, StoreUnavailable>
  /** Whether the current fiber has a transaction open on this database. */
  readonly inTransaction: Effect.Effect<boolean>
  /** Runs Kysely calls on the current transaction, if one is open on this database, or on the database. */
  readonly query: <A>(run: (db: Kysely<Tables>) => Promise<A>) => Effect.Effect<A, SqlError.SqlError | StoreUnavailable>
  /**
   * Runs one compiled statement (`compile` gets the database to compile for) where `query` would: the hot paths'
   * prepared statements (`./prepared.ts`). Synchronously when the dialect's lane can take it; outside
   * a transaction, through the dialect's `runStatement` when it has one, as the server-side statement `name`.
   */
  readonly execute: <R>(
    compile: (db: Kysely<Tables>) => CompiledQuery<R>,
    name?: string,
  ) => Effect.Effect<QueryResult<R>, SqlError.SqlError | StoreUnavailable>
  /**
   * Runs `effect` in one database transaction: committed when it succeeds, rolled back when it fails, dies
   * or is interrupted. Nested calls join the open transaction. A failed commit fails the whole call.
   */
  readonly withTransaction: <A, E, R>(
    effect: Effect.Effect<A, E, R>,
  ) => Effect.Effect<A, E | SqlError.SqlError | StoreUnavailable, Exclude<R, SqlDatabase>>
  /**
   * Runs `run` where the limits every request's statements have (the server's statement timeout, the client's
   * wait for an answer) do not apply: migrations, which may take long, and wait for another instance's whole run.
   * Postgres gives it a connection of its own for the call; elsewhere it is `run` on the database.
   */
  readonly unbounded: <A>(run: (db: Kysely<Tables>) => Promise<A>) => Promise<A>
}

export class SqlDatabase extends Context.Service<SqlDatabase, Service>()("@coffer/adapter-sql/SqlDatabase") {}

/** A transaction open in a fiber: Kysely on it, and its place on the lane when it was begun there. */
interface OpenTransaction {
  readonly db: Kysely<Tables>
  readonly member: LaneMember | undefined
}

/**
 * The transactions open in the current fiber, by the database they belong to. Keyed by database so that a
 * transaction on one database never captures queries meant for another (tests run two side by side).
 */
const OpenTransactions = Context.Reference<ReadonlyMap<Kysely<Tables>, OpenTransaction>>(
  "@coffer/adapter-sql/SqlDatabase/OpenTransactions",
  { defaultValue: () => new Map() },
)

export interface MakeOptions {
  readonly db: Kysely<Tables>
  readonly dialect: Dialect
  /** How long `ping` may take before it reports the database unavailable. */
  readonly pingTimeout?: Duration.Input | undefined
  /** The connection taken without waiting, when the driver runs in this thread (`./SyncLane.ts`). */
  readonly lane?: SyncLane | undefined
  /**
   * Runs one statement on whichever connection is free, without Kysely's bookkeeping around it, and keeps it
   * prepared on the server under `name` when one is given (Postgres: the pool's own `query`).
   */
  readonly runStatement?:
    | (<R>(query: CompiledQuery<R>, name: string | undefined) => Promise<QueryResult<R>>)
    | undefined
  /** `Service.unbounded`; `run` on `db` when not given. */
  readonly unbounded?: (<A>(run: (db: Kysely<Tables>) => Promise<A>) => Promise<A>) | undefined
}

/** Builds the service around a Kysely instance. The caller owns the instance's lifetime (see the dialect layers). */
export const make = (options: MakeOptions): Service => {
  const { db, dialect, lane, runStatement } = options
  const attempt = <A>(run: () => Promise<A>) =>
    Effect.tryPromise({ try: run, catch: SqlError.fromCause }).pipe(Effect.tapError(SqlMetrics.countError))
  const attemptNow = <A>(run: () => A) =>
    Effect.try({ try: run, catch: SqlError.fromCause }).pipe(Effect.tapError(SqlMetrics.countError))

  const query = <A>(run: (db: Kysely<Tables>) => Promise<A>) =>
    Effect.flatMap(OpenTransactions, (open) => attempt(() => run(open.get(db)?.db ?? db)))

  const execute = <R>(compile: (db: Kysely<Tables>) => CompiledQuery<R>, name?: string) =>
    Effect.flatMap(OpenTransactions, (open): Effect.Effect<QueryResult<R>, SqlError.SqlError | StoreUnavailable> => {
      const joined = open.get(db)
      if (joined?.member !== undefined) {
        const { member } = joined
        return attemptNow(() => member.execute(compile(db)))
      }
      if (joined !== undefined) return attempt(() => joined.db.executeQuery(compile(db)))
      if (runStatement !== undefined) return attempt(() => runStatement(compile(db), name))
      if (lane === undefined) return attempt(() => db.executeQuery(compile(db)))
      const compiled = compile(db)
      return Effect.flatMap(
        attemptNow(() => lane.run(compiled)),
        (result) => (result === undefined ? attempt(() => db.executeQuery(compiled)) : Effect.succeed(result)),
      )
    })

  const pingTimeout = options.pingTimeout ?? Duration.seconds(3)
  const ping: Effect.Effect<void, StoreUnavailable> = query((db) => sql`select 1`.execute(db)).pipe(
    Effect.asVoid,
    // Whatever stops a trivial statement means the store cannot serve: readiness wants one answer.
    Effect.mapError((error) =>
      error instanceof StoreUnavailable
        ? error
        : new StoreUnavailable({ store: "database", message: `database ping failed: ${error.message}`, cause: error }),
    ),
    Effect.timeoutOrElse({
      duration: pingTimeout,
      orElse: () =>
        Effect.fail(
          new StoreUnavailable({
            store: "database",
            message: `database did not answer a ping within ${Duration.format(Duration.fromInputUnsafe(pingTimeout))}`,
          }),
        ),
    }),
  )

  /** Waits for the end of the database transaction `member` belongs to; fails when it did not commit. */
  const settled = (member: LaneMember): Effect.Effect<void, SqlError.SqlError | StoreUnavailable> =>
    Effect.callback<void, SqlError.SqlError | StoreUnavailable>((resume) => {
      member.settled((error) => resume(error === undefined ? Effect.void : Effect.fail(SqlError.fromCause(error))))
    })

  /** `effect` in the open transaction `trx`, committed or rolled back by `end` when it is over. */
  const runIn = <A, E, R>(
    effect: Effect.Effect<A, E, R>,
    open: ReadonlyMap<Kysely<Tables>, OpenTransaction>,
    trx: OpenTransaction,
    end: {
      readonly commit: Effect.Effect<void, SqlError.SqlError | StoreUnavailable>
      readonly rollback: Effect.Effect<void>
    },
  ) =>
    Effect.gen(function* () {
      const exit = yield* effect.pipe(
        Effect.provideService(SqlDatabase, { ...service, db: trx.db }),
        Effect.provideService(OpenTransactions, new Map(open).set(db, trx)),
        Effect.exit,
      )
      if (Exit.isFailure(exit)) {
        yield* end.rollback
        return yield* exit
      }
      // A failed commit leaves the transaction open until it is rolled back.
      yield* end.commit.pipe(Effect.tapError(() => end.rollback))
      return exit.value
    })

  const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(OpenTransactions, (open) => {
      const joined = open.get(db)
      if (joined !== undefined) {
        // Already inside a transaction on this database: join it, so the outermost caller decides.
        return Effect.provideService(effect, SqlDatabase, { ...service, db: joined.db })
      }
      // Beginning, committing and rolling back must run to completion once started, or a connection would
      // stay checked out mid-transaction; only the caller's effect is interruptible.
      return Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(lane === undefined ? Effect.succeed(undefined) : attemptNow(() => lane.enter()), (member) => {
          if (member !== undefined) {
            const ended = settled(member)
            return runIn(
              restore(effect),
              open,
              { db: member.db, member },
              {
                commit: Effect.andThen(
                  attemptNow(() => member.leave(true)),
                  Effect.tapError(ended, SqlMetrics.countError),
                ),
                rollback: Effect.andThen(
                  attemptNow(() => member.leave(false)),
                  ended,
                ).pipe(Effect.ignore),
              },
            )
          }
          return Effect.flatMap(
            attempt(() => db.startTransaction().execute()),
            (started) =>
              runIn(
                restore(effect),
                open,
                { db: started, member: undefined },
                {
                  commit: attempt(() => started.commit().execute()),
                  rollback: attempt(() => started.rollback().execute()).pipe(Effect.ignore),
                },
              ),
          )
        }),
      )
    })

  const inTransaction = Effect.map(OpenTransactions, (open) => open.has(db))

  const unbounded = options.unbounded ?? (<A>(run: (db: Kysely<Tables>) => Promise<A>) => run(db))
  const service: Service = { db, dialect, ping, inTransaction, query, execute, withTransaction, unbounded }
  return service
}

/** `query` of the `SqlDatabase` in context. */
export const query = <A>(
  run: (db: Kysely<Tables>) => Promise<A>,
): Effect.Effect<A, SqlError.SqlError | StoreUnavailable, SqlDatabase> =>
  Effect.flatMap(SqlDatabase, (database) => database.query(run))

/** `withTransaction` of the `SqlDatabase` in context. */
export const withTransaction = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E | SqlError.SqlError | StoreUnavailable, SqlDatabase | Exclude<R, SqlDatabase>> =>
  Effect.flatMap(SqlDatabase, (database) => database.withTransaction(effect))

/** `ping` of the `SqlDatabase` in context. */
export const ping: Effect.Effect<void, StoreUnavailable, SqlDatabase> = Effect.flatMap(
  SqlDatabase,
  (database) => database.ping,
)

/** How long a readiness check may take: the Readiness port asks for an answer well under a second. */
const readinessTimeout = Duration.millis(750)

/**
 * The kernel's Readiness port on this database: a `ping`, bounded by `readinessTimeout` so that a load balancer
 * polling `/readyz` never waits on a hung server. Any failure or delay is `StoreUnavailable`.
 */
export const layerReadiness: Layer.Layer<Readiness.Readiness, never, SqlDatabase> = Layer.effect(
  Readiness.Readiness,
  Effect.map(SqlDatabase, (database) => ({
    check: database.ping.pipe(
      Effect.timeoutOrElse({
        duration: readinessTimeout,
        orElse: () =>
          Effect.fail(
            new StoreUnavailable({ store: "database", message: "database did not answer a readiness check in time" }),
          ),
      }),
    ),
  })),
)
