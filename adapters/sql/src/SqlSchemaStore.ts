/**
 * The SchemaStore port of `@coffer/schemas` on SQL (SQLite and Postgres alike, through Kysely), over the tables of
 * migration `0003_schemas`, in one part per aggregate under `schemas/`: platforms and their versions, schemas with
 * their edges and revisions, API tokens, and the audit log. It moves rows; the rules live on the port and in the
 * use cases.
 *
 * - Every statement goes through `SqlDatabase.query`, so a transaction opened by `transaction` (or by a caller's
 *   `withTransaction`) covers it wherever this store was built. Methods of several statements run in a
 *   transaction of their own, which joins the caller's when one is open.
 * - Writing transactions do not interleave (port rule 7; `schemas/writing.ts`).
 * - Lookups by many names are chunked (`schemas/chunks.ts`).
 * - Failures go through `SqlStore`: a failed statement that is not an outage is a bug here, not a condition a
 *   caller can handle: a defect (500). An unreachable database stays `StoreUnavailable` (503).
 */
import { SchemaStore } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { SqlDatabase } from "./SqlDatabase.js"
import * as SqlStore from "./SqlStore.js"
import { auditLog } from "./schemas/audit.js"
import { platforms } from "./schemas/platforms.js"
import { schemas } from "./schemas/schemas.js"
import { tokens } from "./schemas/tokens.js"
import { writing } from "./schemas/writing.js"
import { traced } from "./traced.js"

/** The store on the `SqlDatabase` in context; the database must be migrated. */
export const make: Effect.Effect<SchemaStore["Service"], never, SqlDatabase> = Effect.map(SqlStore.current, (store) => {
  const transaction = writing(store)
  return SchemaStore.of(
    traced("SchemaStore", {
      ...platforms(store, transaction),
      ...schemas(store, transaction),
      ...tokens(store, transaction),
      ...auditLog(store),
      transaction,
    }),
  )
})

/** The SchemaStore on the `SqlDatabase` in context; the database must be migrated. */
export const layer: Layer.Layer<SchemaStore, never, SqlDatabase> = Layer.effect(SchemaStore, make)
