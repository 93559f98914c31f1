/**
 * The schema store's writing transaction: all or nothing, and one at a time (port rule 7). On Postgres each takes
 * a transaction-scoped advisory lock first, so concurrent saves queue instead of cascading from data another save
 * is changing; SQLite runs every transaction on its single connection, one at a time, already.
 */
import type { StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { sql } from "kysely"
import type * as SqlStore from "../SqlStore.js"

/** The advisory lock key of schema writes on Postgres: `coffer` in ASCII, then the area. */
const WRITE_LOCK = [0x636f66, 0x0003] as const

export type Writing = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreUnavailable, R>

export const writing = ({ database, query, transaction }: SqlStore.SqlStore): Writing => {
  const lock: Effect.Effect<void, StoreUnavailable> =
    database.dialect === "postgres"
      ? Effect.asVoid(query((db) => sql`select pg_advisory_xact_lock(${WRITE_LOCK[0]}, ${WRITE_LOCK[1]})`.execute(db)))
      : Effect.void
  return <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    transaction(Effect.andThen(lock, effect)) as Effect.Effect<A, E | StoreUnavailable, R>
}
