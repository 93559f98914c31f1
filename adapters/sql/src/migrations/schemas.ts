/**
 * The schemas area's migrations, merged into the one ordered list in `./index.ts`.
 *
 * `0003_schemas` creates the Schemas service's storage (the SchemaStore port of `@coffer/schemas`):
 * - `schemas_platforms`: one row per platform; `kind` is null for platforms created without one.
 * - `schemas_versions`: one row per version of a platform, holding the version's schema when one is saved
 *   (`content` null: no schema yet). `dependencies` and `sources` are JSON arrays of strings; `sources` is null
 *   for a schema whose sources are unknown. `content` and `output` are JSON documents.
 * - `schemas_dependencies`: the `@extends` edges of each saved schema, indexed by the referenced `platform`, so
 *   that "which schemas reference platform P" is one query (the cascade loads a level of dependents at a time).
 *   `position` keeps the references in the order written.
 * - `schemas_revisions`: every content ever saved for a version (its history), numbered from 1.
 * - `schemas_tokens`: API tokens, found by `token_hash` (SHA-256 hex of the plaintext, unique); `platforms` is a
 *   JSON array, or null for every platform.
 * - `schemas_audit`: who did what when, listed newest first by (`at`, `id`).
 *
 * A version's schema, edges and revisions go with the version, and a platform's versions with the platform
 * (`on delete cascade`), so a deletion removes the whole history in one statement.
 *
 * `0005_schemas_revision_output` keeps with each revision the output its save produced (JSON text), so that the
 * dashboard's history shows what a save resolved to; revisions saved before it have none (null).
 *
 * `0010_schemas_token_platforms` takes out of every token's platforms those deleted before a deletion did so
 * itself (SchemaStore rule 6): left in, a platform created later under such a name would be readable with the
 * token. A list it empties stays, empty (the token reads nothing); `null` (every platform) is left alone.
 *
 * `0013_schemas_revisions_restored_from` adds `schemas_revisions.restored_from`: for a revision a restore made, the
 * number of the revision it saved again, so that the history can say so; null for every other save, and for the
 * revisions saved before restores were recorded (which were all saves made in the editor).
 */
import type { Kysely, Migration } from "kysely"

const m0003: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: a migration must not depend on today's `Tables` (see index.ts).
  up: async (db: Kysely<any>) => {
    await db.schema
      .createTable("schemas_platforms")
      .addColumn("name", "text", (column) => column.primaryKey())
      .addColumn("kind", "text")
      .addColumn("created_at", "text", (column) => column.notNull())
      .execute()
    await db.schema
      .createTable("schemas_versions")
      .addColumn("platform", "text", (column) =>
        column.notNull().references("schemas_platforms.name").onDelete("cascade"),
      )
      .addColumn("version", "text", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("content", "text")
      .addColumn("dependencies", "text")
      .addColumn("output", "text")
      .addColumn("sources", "text")
      .addColumn("saved_at", "text")
      .addColumn("saved_by", "text")
      .addPrimaryKeyConstraint("schemas_versions_pk", ["platform", "version"])
      .execute()
    await db.schema
      .createTable("schemas_dependencies")
      .addColumn("dependent_platform", "text", (column) => column.notNull())
      .addColumn("dependent_version", "text", (column) => column.notNull())
      .addColumn("position", "integer", (column) => column.notNull())
      .addColumn("platform", "text", (column) => column.notNull())
      .addColumn("reference", "text", (column) => column.notNull())
      .addPrimaryKeyConstraint("schemas_dependencies_pk", ["dependent_platform", "dependent_version", "position"])
      .addForeignKeyConstraint(
        "schemas_dependencies_dependent_fk",
        ["dependent_platform", "dependent_version"],
        "schemas_versions",
        ["platform", "version"],
        (constraint) => constraint.onDelete("cascade"),
      )
      .execute()
    await db.schema.createIndex("schemas_dependencies_platform").on("schemas_dependencies").column("platform").execute()
    await db.schema
      .createTable("schemas_revisions")
      .addColumn("platform", "text", (column) => column.notNull())
      .addColumn("version", "text", (column) => column.notNull())
      .addColumn("revision", "integer", (column) => column.notNull())
      .addColumn("content", "text", (column) => column.notNull())
      .addColumn("saved_at", "text", (column) => column.notNull())
      .addColumn("saved_by", "text", (column) => column.notNull())
      .addPrimaryKeyConstraint("schemas_revisions_pk", ["platform", "version", "revision"])
      .addForeignKeyConstraint(
        "schemas_revisions_version_fk",
        ["platform", "version"],
        "schemas_versions",
        ["platform", "version"],
        (constraint) => constraint.onDelete("cascade"),
      )
      .execute()
    await db.schema
      .createTable("schemas_tokens")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("name", "text", (column) => column.notNull())
      .addColumn("token_hash", "text", (column) => column.notNull().unique())
      .addColumn("hint", "text", (column) => column.notNull())
      .addColumn("platforms", "text")
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("created_by", "text", (column) => column.notNull())
      .addColumn("last_used_at", "text")
      .execute()
    await db.schema
      .createTable("schemas_audit")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("at", "text", (column) => column.notNull())
      .addColumn("actor", "text", (column) => column.notNull())
      .addColumn("action", "text", (column) => column.notNull())
      .addColumn("target", "text", (column) => column.notNull())
      .addColumn("detail", "text")
      .execute()
    await db.schema.createIndex("schemas_audit_at_id").on("schemas_audit").columns(["at", "id"]).execute()
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  down: async (db: Kysely<any>) => {
    for (const table of [
      "schemas_audit",
      "schemas_tokens",
      "schemas_revisions",
      "schemas_dependencies",
      "schemas_versions",
      "schemas_platforms",
    ]) {
      await db.schema.dropTable(table).execute()
    }
  },
}

const m0005: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  up: async (db: Kysely<any>) => {
    await db.schema.alterTable("schemas_revisions").addColumn("output", "text").execute()
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  down: async (db: Kysely<any>) => {
    await db.schema.alterTable("schemas_revisions").dropColumn("output").execute()
  },
}

const m0010: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  up: async (db: Kysely<any>) => {
    const existing = new Set(
      (await db.selectFrom("schemas_platforms").select("name").execute()).map((row: { name: string }) => row.name),
    )
    const tokens: ReadonlyArray<{ id: string; platforms: string }> = await db
      .selectFrom("schemas_tokens")
      .select(["id", "platforms"])
      .where("platforms", "is not", null)
      .execute()
    for (const token of tokens) {
      const platforms = JSON.parse(token.platforms) as ReadonlyArray<string>
      const kept = platforms.filter((name) => existing.has(name))
      if (kept.length === platforms.length) continue
      await db
        .updateTable("schemas_tokens")
        .set({ platforms: JSON.stringify(kept) })
        .where("id", "=", token.id)
        .execute()
    }
  },
  // What was taken out is not known any more, and was not readable: there is nothing to put back.
  down: async () => {},
}

const m0013: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  up: async (db: Kysely<any>) => {
    await db.schema.alterTable("schemas_revisions").addColumn("restored_from", "integer").execute()
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  down: async (db: Kysely<any>) => {
    await db.schema.alterTable("schemas_revisions").dropColumn("restored_from").execute()
  },
}

export const schemasMigrations: Readonly<Record<string, Migration>> = {
  "0003_schemas": m0003,
  "0005_schemas_revision_output": m0005,
  "0010_schemas_token_platforms": m0010,
  "0013_schemas_revisions_restored_from": m0013,
}
