/**
 * Row types of the schemas tables (migration `0003_schemas`). Times are ISO-8601 UTC text; JSON documents and
 * string lists are `JSON.stringify` text.
 */

export interface SchemasPlatformRow {
  name: string
  kind: string | null
  created_at: string
}

/** A version of a platform, with its schema when one is saved (`content` null: none yet). */
export interface SchemasVersionRow {
  platform: string
  version: string
  created_at: string
  content: string | null
  /** JSON array of the `@extends` references as written. */
  dependencies: string | null
  output: string | null
  /** JSON array of platform names; null when unknown. */
  sources: string | null
  saved_at: string | null
  saved_by: string | null
}

/** One `@extends` reference of a saved schema, indexed by the referenced platform. */
export interface SchemasDependencyRow {
  dependent_platform: string
  dependent_version: string
  position: number
  platform: string
  reference: string
}

export interface SchemasRevisionRow {
  platform: string
  version: string
  revision: number
  content: string
  /** JSON object: the output the save produced; null for revisions saved before it was kept. */
  output: string | null
  saved_at: string
  saved_by: string
  /** The revision a restore saved again; null for any other save (migration `0013_schemas_revisions_restored_from`). */
  restored_from: number | null
}

export interface SchemasTokenRow {
  id: string
  name: string
  /** SHA-256 (hex) of the plaintext token. */
  token_hash: string
  hint: string
  /** JSON array of platform names; null for every platform. */
  platforms: string | null
  created_at: string
  created_by: string
  last_used_at: string | null
}

export interface SchemasAuditRow {
  id: string
  at: string
  actor: string
  action: string
  target: string
  /** JSON object; null when the entry has no detail. */
  detail: string | null
}

export interface SchemasTables {
  schemas_platforms: SchemasPlatformRow
  schemas_versions: SchemasVersionRow
  schemas_dependencies: SchemasDependencyRow
  schemas_revisions: SchemasRevisionRow
  schemas_tokens: SchemasTokenRow
  schemas_audit: SchemasAuditRow
}
