/**
 * The sessions area's migrations, merged into the one ordered list in `./index.ts`.
 *
 * `0002_sessions` creates what sign-in needs on both services:
 * - `schemas_sessions` and `secrets_sessions`, the same columns each, so either service can run alone. `id` is
 *   the SHA-256 (hex) of the cookie value, never the value. `groups` is a JSON array of strings. Times are
 *   ISO-8601 text per the conventions; the store converts to and from the epoch milliseconds of the Session
 *   schema. Indexes serve back-channel logout, which ends sessions by (issuer, sid) or by (issuer, subject).
 * - `secrets_users` (the accounts of the secrets service) and `secrets_identities` (issuer + subject of the
 *   identity provider, each naming one user). People are matched by identity, never by e-mail; but an e-mail
 *   belongs to one account at most (a second identity with a known e-mail is refused until an operator links
 *   it), and `email_key` (the address NFC-normalised and lower-cased by the application, the same way on both
 *   dialects) is unique so that two first sign-ins racing cannot both create one. Later secrets migrations
 *   reference `secrets_users(id)`.
 */
import type { Kysely, Migration } from "kysely"

const sessionTable = async (
  // biome-ignore lint/suspicious/noExplicitAny: a migration must not depend on today's `Tables` (see index.ts).
  db: Kysely<any>,
  table: "schemas_sessions" | "secrets_sessions",
): Promise<void> => {
  await db.schema
    .createTable(table)
    .addColumn("id", "text", (column) => column.primaryKey())
    .addColumn("user_id", "text", (column) => column.notNull())
    .addColumn("email", "text", (column) => column.notNull())
    .addColumn("groups", "text", (column) => column.notNull())
    .addColumn("issuer", "text")
    .addColumn("subject", "text")
    .addColumn("provider_session_id", "text")
    .addColumn("created_at", "text", (column) => column.notNull())
    .addColumn("expires_at", "text", (column) => column.notNull())
    .execute()
  await db.schema.createIndex(`${table}_issuer_subject`).on(table).columns(["issuer", "subject"]).execute()
  await db.schema
    .createIndex(`${table}_issuer_provider_session`)
    .on(table)
    .columns(["issuer", "provider_session_id"])
    .execute()
}

const m0002: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  up: async (db: Kysely<any>) => {
    await sessionTable(db, "schemas_sessions")
    await sessionTable(db, "secrets_sessions")
    await db.schema
      .createTable("secrets_users")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("email", "text", (column) => column.notNull())
      .addColumn("email_key", "text", (column) => column.notNull().unique())
      .addColumn("created_at", "text", (column) => column.notNull())
      .execute()
    await db.schema
      .createTable("secrets_identities")
      .addColumn("issuer", "text", (column) => column.notNull())
      .addColumn("subject", "text", (column) => column.notNull())
      .addColumn("user_id", "text", (column) => column.notNull().references("secrets_users.id").onDelete("cascade"))
      .addColumn("created_at", "text", (column) => column.notNull())
      .addPrimaryKeyConstraint("secrets_identities_pk", ["issuer", "subject"])
      .execute()
    await db.schema.createIndex("secrets_identities_user_id").on("secrets_identities").column("user_id").execute()
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  down: async (db: Kysely<any>) => {
    await db.schema.dropTable("secrets_identities").execute()
    await db.schema.dropTable("secrets_users").execute()
    await db.schema.dropTable("secrets_sessions").execute()
    await db.schema.dropTable("schemas_sessions").execute()
  },
}

export const sessionsMigrations: Readonly<Record<string, Migration>> = {
  "0002_sessions": m0002,
}
