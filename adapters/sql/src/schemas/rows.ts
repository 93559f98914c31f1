/**
 * How the schemas tables' rows (migration `0003_schemas`) become the port's records and back. Shared by the SQL
 * schema store's parts; nothing here runs a statement.
 *
 * Times are stored as ISO 8601 text and cross the port as epoch milliseconds; JSON columns hold the port's
 * values as text.
 */
import { fromIso } from "@coffer/kernel"
import {
  type PlatformKind,
  type PlatformRecord,
  type Revision,
  type RevisionSummary,
  type StoredToken,
  sortVersions,
} from "@coffer/schemas"
import type * as Schema from "effect/Schema"
import type { SchemasRevisionRow, SchemasTokenRow } from "../tables/schemas.js"

/** Code-unit order, the same on every dialect whatever its collation. */
export const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

export const json = (value: Schema.Json | ReadonlyArray<string>) => JSON.stringify(value)
export const parseObject = (text: string) => JSON.parse(text) as Schema.JsonObject
export const parseList = (text: string) => JSON.parse(text) as ReadonlyArray<string>
export const sortedDistinct = (values: ReadonlyArray<string>) => [...new Set(values)].sort(byName)

export const recordOf = (name: string, kind: string | null, versions: ReadonlyArray<string>): PlatformRecord => ({
  name,
  kind: (kind ?? undefined) as PlatformKind | undefined,
  versions: sortVersions(versions),
})

export const tokenOf = (row: SchemasTokenRow): StoredToken => ({
  id: row.id,
  name: row.name,
  platforms: row.platforms === null ? null : parseList(row.platforms),
  hint: row.hint,
  createdAt: fromIso(row.created_at),
  createdBy: row.created_by,
  lastUsedAt: row.last_used_at === null ? undefined : fromIso(row.last_used_at),
  hash: row.token_hash,
})

/** A revision as the history lists it: `restoredFrom` only on a restore's (port rule 11). */
export const summaryOf = (
  row: Pick<SchemasRevisionRow, "revision" | "saved_by" | "saved_at" | "restored_from">,
): RevisionSummary => ({
  revision: Number(row.revision),
  savedBy: row.saved_by,
  savedAt: fromIso(row.saved_at),
  ...(row.restored_from === null ? {} : { restoredFrom: Number(row.restored_from) }),
})

export const revisionOf = (row: SchemasRevisionRow): Revision => ({
  content: parseObject(row.content),
  output: row.output === null ? undefined : parseObject(row.output),
  ...summaryOf(row),
})
