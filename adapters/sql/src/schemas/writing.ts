/**
 * The schema store's writing transaction: all or nothing, and one at a time (port rule 7). On Postgres each takes
 * a transaction-scoped advisory lock first, so concurrent saves queue instead of cascading from data another save
 * is changing; SQLite runs every transaction on its single connection, one at a time, already.
 *
 * Within one process the writes queue on a semaphore before they take a pooled connection: waiting for the lock
 * on a connection of the pool held that connection for as long as the writes ahead of it ran (a large cascade
 * each), so a burst of saves emptied the pool, and the writes behind them, and every other request of the
 * process (both services share the pool), answered 503 after the pool's wait with the database healthy. So at
 * most one connection of each instance waits for the lock. A writing transaction opened inside another one (a
 * store method called by a use case's transaction) joins it and does not queue again.
 */
import type { StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import { sql } from "kysely"
import type * as SqlStore from "../SqlStore.js"

/** The advisory lock key of schema writes on Postgres: `coffer` in ASCII, then the area. */
const WRITE_LOCK = [0x636f66, 0x0003] as const

export type Writing = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreUnavailable, R>

export const writing = ({ database, query, transaction }: SqlStore.SqlStore): Writing => {
  if (database.dialect !== "postgres") {
    return <A, E, R>(effect: Effect.Effect<A, E, R>) => transaction(effect) as Effect.Effect<A, E | StoreUnavailable, R>
  }
  const lock: Effect.Effect<void, StoreUnavailable> = Effect.asVoid(
    query((db) => sql`select pg_advisory_xact_lock(${WRITE_LOCK[0]}, ${WRITE_LOCK[1]})`.execute(db)),
  )
  const queue = Semaphore.makeUnsafe(1)
  return <A, E, R>(effect: Effect.Effect<A, E, R>) => {
    const write = transaction(Effect.andThen(lock, effect)) as Effect.Effect<A, E | StoreUnavailable, R>
    return Effect.flatMap(database.inTransaction, (inside) => (inside ? write : Semaphore.withPermit(queue, write)))
  }
}
