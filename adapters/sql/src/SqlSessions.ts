/**
 * The Sessions port on SQL: one `SessionStore` over `schemas_sessions` or `secrets_sessions` (each service
 * keeps its own sessions, so either can run alone), wrapped with the kernel's `Sessions.make`, which owns the
 * rules (random value, hash-only storage, expiry on read). This module only moves rows.
 *
 * Rows hold times as ISO-8601 text (the migration conventions) and the groups as a JSON array; the Session
 * schema's epoch milliseconds and arrays are converted here, in one place. A failed statement that is not an
 * outage is a bug in this file, not a condition a caller can handle, so it becomes a defect (500), while an
 * unreachable database stays `StoreUnavailable` (503).
 */
import { type Cache, type Clock, fromIso, type Hasher, type Random, Sessions, toIso } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { prepare } from "./prepared.js"
import { SqlDatabase } from "./SqlDatabase.js"
import * as SqlStore from "./SqlStore.js"
import type { SessionRow } from "./tables/sessions.js"
import { traced } from "./traced.js"

export type Service = "schemas" | "secrets"

export interface Options {
  /** Whose sessions: `schemas` → `schemas_sessions`, `secrets` → `secrets_sessions`. */
  readonly service: Service
}

const tableOf = (service: Service) => (service === "schemas" ? "schemas_sessions" : "secrets_sessions")

const toRow = (session: Sessions.Session): SessionRow => ({
  id: session.id,
  user_id: session.userId,
  email: session.email,
  groups: JSON.stringify(session.groups),
  issuer: session.issuer ?? null,
  subject: session.subject ?? null,
  provider_session_id: session.providerSessionId ?? null,
  created_at: toIso(session.createdAt),
  expires_at: toIso(session.expiresAt),
})

const fromRow = (row: SessionRow): Sessions.Session => ({
  id: row.id,
  userId: row.user_id,
  email: row.email,
  groups: JSON.parse(row.groups) as ReadonlyArray<string>,
  ...(row.issuer === null ? {} : { issuer: row.issuer }),
  ...(row.subject === null ? {} : { subject: row.subject }),
  ...(row.provider_session_id === null ? {} : { providerSessionId: row.provider_session_id }),
  createdAt: fromIso(row.created_at),
  expiresAt: fromIso(row.expires_at),
})

/** The store over one service's table, on the `SqlDatabase` in context (transactions reach it; see there). */
export const makeStore = (options: Options): Effect.Effect<Sessions.SessionStore, never, SqlDatabase> =>
  Effect.map(SqlDatabase, (database) => {
    const table = tableOf(options.service)
    const { query, first } = SqlStore.make(database)
    // Every signed-in request looks its session up (issue 10): built once.
    const byId = prepare<{ id: string }>()((db, param) =>
      db.selectFrom(table).selectAll().where("id", "=", param("id")),
    )
    const deleted = (result: ReadonlyArray<{ numDeletedRows: bigint }>) =>
      result.reduce((sum, part) => sum + Number(part.numDeletedRows), 0)
    return {
      insert: (session) => query((db) => db.insertInto(table).values(toRow(session)).execute()).pipe(Effect.asVoid),
      find: (id) =>
        SqlStore.settle(first(byId, { id })).pipe(Effect.map((row) => (row === undefined ? undefined : fromRow(row)))),
      remove: (id) => query((db) => db.deleteFrom(table).where("id", "=", id).execute()).pipe(Effect.asVoid),
      removeWhere: (filter) =>
        query((db) => {
          let statement = db.deleteFrom(table).where("issuer", "=", filter.issuer)
          if (filter.subject !== undefined) statement = statement.where("subject", "=", filter.subject)
          if (filter.providerSessionId !== undefined) {
            statement = statement.where("provider_session_id", "=", filter.providerSessionId)
          }
          return statement.execute()
        }).pipe(Effect.map(deleted)),
      removeExpired: (now) =>
        query((db) => db.deleteFrom(table).where("expires_at", "<=", toIso(now)).execute()).pipe(Effect.map(deleted)),
    } satisfies Sessions.SessionStore
  })

/** The Sessions port for one service on the `SqlDatabase` in context; the database must be migrated. */
export const layer = (
  options: Options,
): Layer.Layer<Sessions.Sessions, never, SqlDatabase | Random.Random | Hasher.Hasher | Clock.Clock> =>
  Layer.effect(
    Sessions.Sessions,
    Effect.flatMap(makeStore(options), (store) => Sessions.make(traced("SessionStore", store))),
  )

/**
 * The same, its lookups cached through the Cache port in context (kernel `Sessions.makeCached`): for deployments
 * where every process that ends sessions reaches that cache. Run `Sessions.listener(service)` beside it.
 */
export const layerCached = (
  options: Options,
): Layer.Layer<Sessions.Sessions, never, SqlDatabase | Random.Random | Hasher.Hasher | Clock.Clock | Cache.Cache> =>
  Layer.effect(
    Sessions.Sessions,
    Effect.flatMap(makeStore(options), (store) =>
      Sessions.makeCached(traced("SessionStore", store), Sessions.caching(options.service)),
    ),
  )
