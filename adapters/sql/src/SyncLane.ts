/**
 * A connection this thread can use without waiting, for a driver that runs statements in-process (SQLite).
 *
 * Through Kysely every statement waits its turn for the connection with a promise and answers with another, and
 * the Effect that runs it suspends and resumes around them: on SQLite, where running the statement itself takes a
 * few microseconds, those turns were most of an audited read's CPU (issue 10). The lane instead runs a statement,
 * or a whole transaction, at once and synchronously when the writing connection is free, and hands it back before
 * anything else runs, so it never interleaves with another caller. When the connection is held (a transaction
 * awaiting its next statement, a migration), the caller goes the ordinary way and queues; holders through either
 * way exclude each other, since the lane and the driver share one lock.
 *
 * The transactions one turn of the event loop runs on the lane may share one database transaction (group commit,
 * `@coffer/adapter-sqlite`): each is a savepoint in it, undone alone when it fails, and none answers before the
 * shared commit has succeeded, so no caller is told of work that a failed commit then drops.
 */
import type { CompiledQuery, Kysely, QueryResult } from "kysely"
import type { Tables } from "./Tables.js"

/** A transaction on the lane: usable from `SyncLane.enter` until `leave`. */
export interface LaneMember {
  /** Runs one compiled statement now, in the transaction. */
  readonly execute: <R>(query: CompiledQuery<R>) => QueryResult<R>
  /** Kysely on the transaction's connection, without the lock (the transaction holds it). */
  readonly db: Kysely<Tables>
  /** Ends this transaction's part: kept (`true`) or undone (`false`). A second call does nothing. */
  readonly leave: (keep: boolean) => void
  /**
   * Calls `done` once the database transaction this one belongs to has ended: with `undefined` when it committed,
   * with the error when it did not (then nothing of it was kept). At once when it has ended already.
   */
  readonly settled: (done: (error: unknown) => void) => void
}

export interface SyncLane {
  /**
   * Runs one statement outside any transaction, now, when it can: a statement that only reads on a connection
   * that sees committed data only, one that writes when nothing holds the writing connection or waits for it.
   * `undefined` when the statement has to queue for the connection instead.
   */
  readonly run: <R>(query: CompiledQuery<R>) => QueryResult<R> | undefined
  /** Begins a transaction on the lane, or joins this turn's; `undefined` when the connection is held otherwise. */
  readonly enter: () => LaneMember | undefined
}
