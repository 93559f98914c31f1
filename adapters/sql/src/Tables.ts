/**
 * The row types of every table the SQL stores read and write, as Kysely sees them. Each area keeps its tables
 * in a file of its own under `tables/`; each migration that adds or changes a table updates that file in the
 * same commit. Migrations themselves never import these types: a migration must keep working against the
 * schema as it was when it was written.
 */
import type { SchemasTables } from "./tables/schemas.js"
import type { SecretsTables } from "./tables/secrets.js"
import type { SessionTables } from "./tables/sessions.js"

/**
 * Facts about the database itself: `created_at` (ISO-8601 UTC), `schema_version` (last migration name),
 * `master_key_canary` (a data key wrapped at first start, `SqlKeyCanary`).
 */
export interface CofferMetaTable {
  key: string
  value: string
}

export interface CofferTables {
  coffer_meta: CofferMetaTable
}

export interface Tables extends CofferTables, SessionTables, SchemasTables, SecretsTables {}
