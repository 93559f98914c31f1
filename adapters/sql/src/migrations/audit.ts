/**
 * The audit area's migrations, merged into the one ordered list in `./index.ts`.
 *
 * `0006_audit_append_only`: both audit tables (`schemas_audit`, `secrets_audit_log`) refuse UPDATE and DELETE
 * (and, on Postgres, TRUNCATE) in the database itself, so that neither a bug in a store nor someone holding
 * the application's connection can rewrite or erase history. Nothing in Coffer changes an audit row: a project's
 * deletion keeps its entries (they have no foreign keys), and the audit log only grows. An operator who must
 * prune it drops the trigger on purpose, in a migration of their own.
 *
 * `0007_secrets_audit_sequence`: `secrets_audit_log.seq`, the order in which records were appended, so that
 * records of one millisecond come back in a fixed order, the same on every instance (SecretStore rule 6): on
 * Postgres an identity column (one sequence, whichever instance appends), on SQLite the next number taken in the
 * insert itself (SQLite runs one writer at a time). Rows written before are numbered in the order they were shown
 * until then (`created_at`, then `id`), with the append-only trigger lifted for that one update. It is the one
 * column that breaks the `integer`-only convention of `./index.ts`: a log may outgrow 32 bits.
 *
 * `0009_secrets_audit_filters`: what the log's filters (SecretStore rule 12) need from the database.
 * `user_email_key`, the address as accounts compare it (`Accounts.emailKey`: NFC, lower case), because neither
 * database's `lower()` is that for every script (SQLite's folds ASCII only); rows written before get theirs with
 * the append-only trigger lifted for that one update, as in 0007: `lower()` for all, then the application's key for
 * the few addresses where the two differ. And the index `secrets_audit_log_project_target` on (`project_id`,
 * `target_key`), in code unit order on Postgres (`collate "C"`), for the most selective filter, one secret's trail,
 * which without it reads the project's whole log to fill a page. The other filters (action, person, environment)
 * match many records each, so walking the order index and skipping the rest finds a page soon; another index would
 * cost every audited read a write for little.
 *
 * `0012_secrets_audit_api_key`: `api_key_id` and `api_key_name` on `secrets_audit_log`, the API key a person
 * acted through and its name then (SecretStore rule 13), written by the same insert as the rest of the record;
 * both null for a session, and for every row already there, which did not say (none is guessed, and no row is
 * updated, so the append-only trigger stays as it is). No foreign key: a deleted key's records stay. And the index
 * `secrets_audit_log_project_api_key` on (`project_id`, `api_key_id`, `created_at`, `seq`), the time in code unit
 * order on Postgres, for the log's `apiKey` filter: one key's trail is as selective as one secret's (a leaked key
 * is looked for among everything else), and with the log's order in the index a page is read in order, without
 * sorting the key's whole trail. It costs every audited action one more index entry.
 *
 * Triggers are the one place where the dialects cannot share SQL; the dialect is read from Kysely's adapter.
 */
import { Accounts } from "@coffer/secrets"
import { type Kysely, type Migration, PostgresAdapter, sql } from "kysely"

const AUDIT_TABLES = ["schemas_audit", "secrets_audit_log"] as const

// biome-ignore lint/suspicious/noExplicitAny: a migration must not depend on today's `Tables` (see index.ts).
const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter

/** SQLite's append-only trigger for one table and operation. */
// biome-ignore lint/suspicious/noExplicitAny: as above.
const refuseOnSqlite = (db: Kysely<any>, table: string, operation: "update" | "delete") =>
  sql`create trigger ${sql.raw(`${table}_no_${operation}`)} before ${sql.raw(operation)} on ${sql.table(table)}
    begin select raise(abort, ${sql.lit(`audit records are append-only: ${operation} on ${table} refused`)}); end`.execute(
    db,
  )

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
      for (const operation of ["update", "delete"] as const) await refuseOnSqlite(db, table, operation)
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

const m0007: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  up: async (db: Kysely<any>) => {
    const postgres = isPostgres(db)
    const number = (order: ReturnType<typeof sql>) =>
      sql`update secrets_audit_log set seq = numbered.n
        from (select id, row_number() over (order by ${order}) as n from secrets_audit_log) as numbered
        where numbered.id = secrets_audit_log.id`.execute(db)
    if (postgres) {
      await sql`alter table secrets_audit_log add column seq bigint`.execute(db)
      await sql`alter table secrets_audit_log disable trigger secrets_audit_log_append_only`.execute(db)
      await number(sql`created_at collate "C", id collate "C"`)
      await sql`alter table secrets_audit_log enable trigger secrets_audit_log_append_only`.execute(db)
      await sql`alter table secrets_audit_log alter column seq set not null`.execute(db)
      await sql`alter table secrets_audit_log alter column seq add generated by default as identity`.execute(db)
      await sql`select setval(pg_get_serial_sequence('secrets_audit_log', 'seq'),
        (select coalesce(max(seq), 0) + 1 from secrets_audit_log), false)`.execute(db)
    } else {
      await sql`alter table secrets_audit_log add column seq integer not null default 0`.execute(db)
      await sql`drop trigger secrets_audit_log_no_update`.execute(db)
      await number(sql`created_at, id`)
      await refuseOnSqlite(db, "secrets_audit_log", "update")
    }
    await db.schema.createIndex("secrets_audit_log_seq").on("secrets_audit_log").column("seq").unique().execute()
    await db.schema.dropIndex("secrets_audit_log_project_time").execute()
    await db.schema
      .createIndex("secrets_audit_log_project_order")
      .on("secrets_audit_log")
      .columns(["project_id", "created_at", "seq"])
      .execute()
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  down: async (db: Kysely<any>) => {
    await db.schema.dropIndex("secrets_audit_log_project_order").execute()
    await db.schema.dropIndex("secrets_audit_log_seq").execute()
    await db.schema
      .createIndex("secrets_audit_log_project_time")
      .on("secrets_audit_log")
      .columns(["project_id", "created_at", "id"])
      .execute()
    await db.schema.alterTable("secrets_audit_log").dropColumn("seq").execute()
  },
}

const m0009: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  up: async (db: Kysely<any>) => {
    const postgres = isPostgres(db)
    if (postgres) {
      await sql`alter table secrets_audit_log add column user_email_key text`.execute(db)
      await sql`alter table secrets_audit_log disable trigger secrets_audit_log_append_only`.execute(db)
    } else {
      await sql`alter table secrets_audit_log add column user_email_key text not null default ''`.execute(db)
      await sql`drop trigger secrets_audit_log_no_update`.execute(db)
    }
    await sql`update secrets_audit_log set user_email_key = lower(user_email)`.execute(db)
    const keys = await sql<{ user_email: string; user_email_key: string }>`
      select distinct user_email, user_email_key from secrets_audit_log`.execute(db)
    for (const { user_email, user_email_key } of keys.rows) {
      const key = Accounts.emailKey(user_email)
      if (key === user_email_key) continue
      await sql`update secrets_audit_log set user_email_key = ${key} where user_email = ${user_email}`.execute(db)
    }
    if (postgres) {
      await sql`alter table secrets_audit_log enable trigger secrets_audit_log_append_only`.execute(db)
      await sql`alter table secrets_audit_log alter column user_email_key set not null`.execute(db)
      await sql`create index secrets_audit_log_project_target
        on secrets_audit_log (project_id, target_key collate "C")`.execute(db)
    } else {
      await refuseOnSqlite(db, "secrets_audit_log", "update")
      await sql`create index secrets_audit_log_project_target on secrets_audit_log (project_id, target_key)`.execute(db)
    }
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  down: async (db: Kysely<any>) => {
    await db.schema.dropIndex("secrets_audit_log_project_target").execute()
    await db.schema.alterTable("secrets_audit_log").dropColumn("user_email_key").execute()
  },
}

const m0012: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  up: async (db: Kysely<any>) => {
    await db.schema.alterTable("secrets_audit_log").addColumn("api_key_id", "text").execute()
    await db.schema.alterTable("secrets_audit_log").addColumn("api_key_name", "text").execute()
    const byTime = isPostgres(db) ? sql`created_at collate "C"` : sql`created_at`
    await sql`create index secrets_audit_log_project_api_key
      on secrets_audit_log (project_id, api_key_id, ${byTime}, seq)`.execute(db)
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  down: async (db: Kysely<any>) => {
    await db.schema.dropIndex("secrets_audit_log_project_api_key").execute()
    await db.schema.alterTable("secrets_audit_log").dropColumn("api_key_name").execute()
    await db.schema.alterTable("secrets_audit_log").dropColumn("api_key_id").execute()
  },
}

export const auditMigrations: Readonly<Record<string, Migration>> = {
  "0006_audit_append_only": m0006,
  "0007_secrets_audit_sequence": m0007,
  "0009_secrets_audit_filters": m0009,
  "0012_secrets_audit_api_key": m0012,
}
