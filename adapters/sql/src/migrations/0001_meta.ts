/**
 * 0001: the `coffer_meta` table, facts about the database itself, and the time it was created.
 */
import type { Kysely } from "kysely"

// biome-ignore lint/suspicious/noExplicitAny: a migration must not depend on today's `Tables` (see index.ts).
export const up = async (db: Kysely<any>): Promise<void> => {
  await db.schema
    .createTable("coffer_meta")
    .addColumn("key", "text", (column) => column.primaryKey())
    .addColumn("value", "text", (column) => column.notNull())
    .execute()
  await db.insertInto("coffer_meta").values({ key: "created_at", value: new Date().toISOString() }).execute()
}

// biome-ignore lint/suspicious/noExplicitAny: as above.
export const down = async (db: Kysely<any>): Promise<void> => {
  await db.schema.dropTable("coffer_meta").execute()
}
