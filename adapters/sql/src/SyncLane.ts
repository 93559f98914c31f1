/**
 * A connection this thread can take without waiting, for a driver that runs statements in-process (SQLite).
 *
 * Through Kysely every statement waits its turn for the connection with a promise and answers with another, and
 * the Effect that runs it suspends and resumes around them: on SQLite, where running the statement itself takes a
 * few microseconds, those turns were most of an audited read's CPU (issue 10). When the connection is free, and
 * nobody is queued for it, a statement or a whole transaction can instead run at once, synchronously, and hand
 * the connection back before anything else runs, so it never interleaves with another caller. When the
 * connection is held (a transaction awaiting its next statement, a migration), the caller goes the ordinary way
 * and queues; holders through either way exclude each other, since the lane and the driver share one lock.
 */
import type { CompiledQuery, Kysely, QueryResult } from "kysely"
import type { Tables } from "./Tables.js"

/** The taken connection: usable only between `SyncLane.take` and `SyncLane.release`. */
export interface SyncConnection {
  /** Runs one compiled statement now. */
  readonly execute: <R>(query: CompiledQuery<R>) => QueryResult<R>
  /** Kysely on this connection, without the lock (its holder has it): what a transaction on the lane runs `query` on. */
  readonly db: Kysely<Tables>
  /** Begins the transaction that holds the connection (with the dialect's locking, `begin immediate` on SQLite). */
  readonly begin: () => void
  readonly commit: () => void
  readonly rollback: () => void
}

export interface SyncLane {
  /** The connection, now held, when nothing holds it or waits for it; `undefined` otherwise. */
  readonly take: () => SyncConnection | undefined
  /** Hands the connection back, to the first caller queued for it if any. */
  readonly release: () => void
}
