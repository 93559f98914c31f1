/**
 * The audit area's migrations, merged into the one ordered list in `./index.ts`.
 *
 * `0006_audit_append_only`: both audit tables (`schemas_audit`, `secrets_audit_log`) refuse UPDATE and DELETE
 * (and, on Postgres, TRUNCATE) in the database itself, so that neither a bug in a store nor someone holding
 * the application's connection can rewrite or erase history. Nothing in Coffer changes an audit row: a project's
 * deletion keeps its entries (they have no foreign keys), and the audit log only grows. An operator who must
 * prune it drops the trigger on purpose, in a migration of their own.
 *
 * Triggers are the one place where the dialects cannot share SQL; the dialect is read from Kysely's adapter.
 */
import { type Kysely, type Migration, PostgresAdapter, sql } from "kysely"

const AUDIT_TABLES = ["schemas_audit", "secrets_audit_log"] as const

// biome-ignore lint/suspicious/noExplicitAny: a migration must not depend on today's `Tables` (see index.ts).
const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter

const m0006: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  up: async (db: Kysely<any>) => {
    if (isPostgres(db)) {
      await sql`
        create function coffer_audit_append_only() returns trigger language plpgsql as $$
        begin
          raise exception 'audit records are append-only: % on % refused', tg_op, tg_table_name
            using errcode = 'insufficient_privilege';
        end $$`.execute(db)
      for (const table of AUDIT_TABLES) {
        await sql`create trigger ${sql.raw(`${table}_append_only`)} before update or delete on ${sql.table(table)}
          for each row execute function coffer_audit_append_only()`.execute(db)
        await sql`create trigger ${sql.raw(`${table}_no_truncate`)} before truncate on ${sql.table(table)}
          for each statement execute function coffer_audit_append_only()`.execute(db)
      }
      return
    }
    for (const table of AUDIT_TABLES) {
      for (const operation of ["update", "delete"] as const) {
        await sql`create trigger ${sql.raw(`${table}_no_${operation}`)} before ${sql.raw(operation)} on ${sql.table(table)}
          begin select raise(abort, ${sql.lit(`audit records are append-only: ${operation} on ${table} refused`)}); end`.execute(
          db,
        )
      }
    }
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  down: async (db: Kysely<any>) => {
    if (isPostgres(db)) {
      for (const table of AUDIT_TABLES) {
        await sql`drop trigger ${sql.raw(`${table}_append_only`)} on ${sql.table(table)}`.execute(db)
        await sql`drop trigger ${sql.raw(`${table}_no_truncate`)} on ${sql.table(table)}`.execute(db)
      }
      await sql`drop function coffer_audit_append_only()`.execute(db)
      return
    }
    for (const table of AUDIT_TABLES) {
      for (const operation of ["update", "delete"])
        await sql`drop trigger ${sql.raw(`${table}_no_${operation}`)}`.execute(db)
    }
  },
}

export const auditMigrations: Readonly<Record<string, Migration>> = {
  "0006_audit_append_only": m0006,
}
