/**
 * Every migration, as code: the hosts are bundled, so nothing is read from the file system. `migrate` hands
 * this record to Kysely's Migrator, which applies pending entries in the order of their names.
 *
 * Conventions every migration follows, so that one store implementation serves SQLite and Postgres:
 * - Names: a four-digit sequence and a short snake_case subject (`0002_schemas`). Append only: never rename,
 *   reorder or edit a migration that has shipped; change the schema with a new one. Update `../Tables.ts` in
 *   the same commit.
 * - Migrations take `Kysely<any>`, not `Kysely<Tables>`: they describe the schema as it was when they were
 *   written, and must keep compiling when `Tables` moves on.
 * - Table names carry their owner's prefix: `coffer_` (shared), `schemas_`, `secrets_`, so either service can
 *   run alone or share one database with the other.
 * - Column types: only `text` and `integer`. `integer` is 32-bit on Postgres: use it for counts, version
 *   numbers and booleans (0/1; SQLite has no boolean, and one representation keeps the stores dialect-free).
 *   No `boolean`, `jsonb`, `timestamp`, `bytea`/`blob`, `serial` or autoincrement. The one exception is
 *   `secrets_audit_log.seq` (`0007_secrets_audit_sequence`): the order of appends, a Postgres identity column.
 * - Timestamps: `text`, ISO-8601 UTC exactly as `Date.prototype.toISOString()` writes it
 *   (`2026-01-31T12:00:00.000Z`): fixed width, so comparing strings compares instants, in both dialects.
 * - Ids: `text`, made by the application (random or natural keys), never by the database.
 * - JSON documents: `text` holding `JSON.stringify` output. Binary (ciphertexts, nonces): base64url `text`.
 * - Foreign keys: declared, with the `on delete` behaviour spelled out. SQLite enforces them because the
 *   SQLite layer turns `foreign_keys` on.
 * - Transactions: on Postgres all pending migrations run in one transaction, after an advisory lock, so
 *   concurrent starts apply each migration once. Kysely does not wrap SQLite migrations, so `migrate` runs each
 *   SQLite migration in a transaction of its own; a SQLite table rebuild must therefore use
 *   `PRAGMA defer_foreign_keys = ON`, since `foreign_keys = OFF` has no effect inside a transaction.
 */
import type { Migration } from "kysely"
import * as m0001 from "./0001_meta.js"
import { auditMigrations } from "./audit.js"
import { schemasMigrations } from "./schemas.js"
import { secretsMigrations } from "./secrets.js"
import { sessionsMigrations } from "./sessions.js"

/**
 * Numbers are taken in order across areas (0002 sessions, 0003 schemas, 0004 secrets, 0006 and 0007 audit, 0008
 * secrets, 0009 audit, 0010 schemas, 0011 secrets, 0012 audit, 0013 schemas, 0014 and 0015 secrets, then the next free number); a duplicate
 * name would silently drop a migration, so `index.test.ts` checks there is none.
 */
export const migrations: Readonly<Record<string, Migration>> = {
  "0001_meta": m0001,
  ...sessionsMigrations,
  ...schemasMigrations,
  ...secretsMigrations,
  ...auditMigrations,
}

/** The name of the newest migration: the schema version a fully migrated database is at. */
export const latestMigration: string = Object.keys(migrations).sort().at(-1) ?? ""
