/**
 * The Postgres dialect of the SQL store: a scoped `SqlDatabase` on a pg connection pool. This is the dialect
 * for more than one instance: any number of processes share one database.
 *
 * Building the layer never waits for the server. The pool connects on first use and again after every
 * failure, so a host can start while Postgres is down, answer 503 (every call fails with `StoreUnavailable`
 * within the connection timeout), and recover by itself once the server is back.
 *
 * The URL may hold a password: it is taken as `Redacted` and never written into an error or a log line.
 */
import { SqlDatabase, type Tables } from "@coffer/adapter-sql"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { type CompiledQuery, Kysely, PostgresDialect, type QueryResult } from "kysely"

export interface Options {
  /** `postgres://user:password@host:port/database`; pass it `Redacted` when it comes from configuration. */
  readonly url: string | Redacted.Redacted<string>
  /** Most connections the pool opens (default 10). */
  readonly max?: number | undefined
  /** How long to wait for a connection, new or from a busy pool, before failing (default 2000). */
  readonly connectionTimeoutMs?: number | undefined
  /** Server-side limit on one statement (default 30000); migrations run without it (`unbounded`). */
  readonly statementTimeoutMs?: number | undefined
  /**
   * How long any statement on the pool waits for its answer before its connection is given up (default: the
   * statement timeout and 5 s more). The server's own limit cannot help when the link to it stalls silently (a
   * frozen proxy, a dropped route): the request would wait as long as the stall lasted. The connection is discarded,
   * and the call fails as the database being unavailable. Migrations run without it (`unbounded`).
   */
  readonly queryTimeoutMs?: number | undefined
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** How long closing waits for statements still running before it leaves their connections to end by themselves. */
const END_WAIT_MS = 2_000

/** What a row-changing command reports as its count, as Kysely's own Postgres driver reads it. */
const CHANGING_COMMANDS = new Set(["INSERT", "UPDATE", "DELETE", "MERGE"])

/**
 * One statement on the pool's next free connection (`SqlDatabase`'s `runStatement`): the pool's own `query`,
 * without Kysely's connection bookkeeping around it, and named, so each connection parses and plans a hot path's
 * statement once instead of on every call (pg prepares a named statement on first use per connection).
 */
const runOnPool = async <R>(
  pool: import("pg").Pool,
  query: CompiledQuery<R>,
  name: string | undefined,
  timeoutMs: number,
): Promise<QueryResult<R>> => {
  // pg's own client-side bound: past it the call fails ("Query read timeout") and the pool discards the connection.
  const result = await pool.query<R & import("pg").QueryResultRow>({
    text: query.sql,
    values: [...query.parameters],
    query_timeout: timeoutMs,
    ...(name === undefined ? {} : { name }),
  } as import("pg").QueryConfig)
  return CHANGING_COMMANDS.has(result.command) && result.rowCount !== null
    ? { rows: result.rows, numAffectedRows: BigInt(result.rowCount) }
    : { rows: result.rows }
}

/** The service on a new pool, ended when the scope closes. Never fails: connecting is deferred to first use. */
export const make = (options: Options): Effect.Effect<SqlDatabase.Service, never, Scope.Scope> =>
  Effect.gen(function* () {
    // pg is an optional peer dependency: load it only when Postgres is chosen.
    const { default: pg } = yield* Effect.promise(() => import("pg"))
    const context = yield* Effect.context<never>()
    const warn = (text: string, error: unknown) =>
      Effect.runForkWith(context)(Effect.logWarning(text, { error: message(error) }))

    const connectionTimeoutMs = options.connectionTimeoutMs ?? 2_000
    const statementTimeoutMs = options.statementTimeoutMs ?? 30_000
    const queryTimeoutMs = options.queryTimeoutMs ?? statementTimeoutMs + 5_000
    const connectionString = Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url
    const { pool, db } = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const pool = new pg.Pool({
          connectionString,
          max: options.max ?? 10,
          connectionTimeoutMillis: connectionTimeoutMs,
          idleTimeoutMillis: 30_000,
          // Detects a server that vanished without closing the socket, on idle and busy connections alike.
          keepAlive: true,
          statement_timeout: statementTimeoutMs,
          // pg's own bound on every statement's answer, for the stalls the server never sees (`queryTimeoutMs`).
          query_timeout: queryTimeoutMs,
          // A transaction left open by a stuck caller would hold its locks forever.
          idle_in_transaction_session_timeout: 60_000,
          application_name: "coffer",
        })
        // An idle connection that fails (server restart, network) is removed by the pool, which then emits
        // `error`: without a listener Node would end the process.
        pool.on("error", (error) => warn("Postgres: an idle connection failed and was discarded", error))
        // A connection that fails while checked out but between queries (inside a transaction) emits `error`
        // on the client, which the pool does not listen to then. Its next query fails and is classified, and
        // the pool discards it on release; the listener only keeps the process alive.
        pool.on("connect", (client) => {
          client.on("error", (error) => warn("Postgres: a connection in use failed", error))
        })
        return { pool, db: new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) }) }
      }),
      ({ pool, db }) =>
        Effect.promise(async () => {
          const ending = (async () => {
            await db.destroy().catch(() => undefined)
            // Kysely ends the pool only if a query ever ran.
            if (!pool.ending) await pool.end().catch(() => undefined)
          })()
          // Ending waits for every connection in use; one stuck on a stalled link would hold a shutdown for the
          // whole query timeout (35 s). Past the bound it is left to end by itself (or with the process).
          let bound: ReturnType<typeof setTimeout> | undefined
          await Promise.race([ending, new Promise((resolve) => (bound = setTimeout(resolve, END_WAIT_MS)))])
          clearTimeout(bound)
        }),
    )
    // One connection of its own for the call, without the pool's time limits, closed after it.
    const unbounded = async <A>(run: (db: Kysely<Tables>) => Promise<A>): Promise<A> => {
      const alone = new pg.Pool({
        connectionString,
        max: 1,
        connectionTimeoutMillis: connectionTimeoutMs,
        keepAlive: true,
        application_name: "coffer",
      })
      alone.on("error", (error) => warn("Postgres: an idle connection failed and was discarded", error))
      const own = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: alone }) })
      try {
        return await run(own)
      } finally {
        await own.destroy().catch(() => undefined)
        if (!alone.ending) await alone.end().catch(() => undefined)
      }
    }
    return SqlDatabase.make({
      db,
      dialect: "postgres",
      pingTimeout: Duration.millis(connectionTimeoutMs + 1_000),
      runStatement: (query, name) => runOnPool(pool, query, name, queryTimeoutMs),
      unbounded,
    })
  })

/** `SqlDatabase` on Postgres; the pool is ended when the layer is released. Building it never fails. */
export const layer = (options: Options): Layer.Layer<SqlDatabase.SqlDatabase> =>
  Layer.effect(SqlDatabase.SqlDatabase, make(options))
