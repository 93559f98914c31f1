/**
 * The row types of every table the SQL stores read and write, as Kysely sees them. Each migration that adds
 * or changes a table updates this file in the same commit; migrations themselves never import it, because a
 * migration must keep working against the schema as it was when the migration was written.
 */

/** Facts about the database itself: `created_at` (ISO-8601 UTC), `schema_version` (last migration name). */
export interface CofferMetaTable {
  key: string
  value: string
}

export interface Tables {
  coffer_meta: CofferMetaTable
}
