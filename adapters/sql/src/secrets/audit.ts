/**
 * The audit log of the SQL secret store, and the one way every part of it appends a record: in the transaction of
 * the change the record describes (port rules 1 and 2), so both commit or neither does.
 *
 * The log is paged by the database, newest first by `created_at`, then by `seq`, the order of appends (migration
 * `0007_secrets_audit_sequence`): Postgres numbers a record with its identity column, SQLite in the insert,
 * where the next number is safe to take because SQLite runs one writer at a time. The order must not depend on
 * the collation: Postgres compares `created_at` with `collate "C"`, code unit order, as SQLite does by default.
 *
 * Filters (port rule 12) are `where` conditions, so paging counts matching rows only. A key's records are its
 * `target_key` exactly, or the range of texts that start with `<KEY>@` (from `<KEY>@` up to `<KEY>A`, `A` being the
 * code unit after `@`): no LIKE, whose `_` would be a wildcard (keys may hold it) and which SQLite compares without
 * case. The range is in code unit order too, and the index `secrets_audit_log_project_target` (migration
 * `0009_secrets_audit_filters`) serves both conditions; `user_email_key` holds the address as accounts compare it.
 * An API key's records are found by `api_key_id`, with the index `secrets_audit_log_project_api_key` (migration
 * `0012_secrets_audit_api_key`), which holds them in the log's order.
 */
import type { StoreUnavailable } from "@coffer/kernel"
import type { SecretStore } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import { type Kysely, sql } from "kysely"
import { prepare } from "../prepared.js"
import type { SqlError } from "../SqlError.js"
import type * as SqlStore from "../SqlStore.js"
import type { Tables } from "../Tables.js"
import { AUDIT_COLUMNS, type AuditValues, auditRow, changed, toAudit } from "./rows.js"

type AuditRecord = SecretStore.AuditRecord

/** The helpers every part of the store writes through. */
export interface Audited {
  /** Appends one record; only ever inside a transaction, with the change it describes. */
  readonly append: (entry: AuditRecord) => Effect.Effect<void, SqlError | StoreUnavailable>
  /** `change`, then its record, in one transaction. */
  readonly audited: <A, E>(
    entry: AuditRecord,
    change: Effect.Effect<A, E>,
  ) => Effect.Effect<A, Exclude<E, SqlError> | StoreUnavailable>
  /**
   * One statement that updates or deletes, then its record, in one transaction: true when it touched a row, false
   * (and no record) when there was nothing to change.
   */
  readonly auditedChange: (
    entry: AuditRecord,
    run: (db: Kysely<Tables>) => Promise<{ readonly numUpdatedRows?: bigint; readonly numDeletedRows?: bigint }>,
  ) => Effect.Effect<boolean, StoreUnavailable>
}

export const audited = (store: SqlStore.SqlStore): Audited => {
  const nextSeq = sql<number>`(select coalesce(max(seq), 0) + 1 from secrets_audit_log)`
  const sqlite = store.database.dialect === "sqlite"
  // On the hot path (every audited read on SQLite, every write): built once.
  const insert = prepare<AuditValues>()((db, param) =>
    db.insertInto("secrets_audit_log").values({
      ...Object.fromEntries(AUDIT_COLUMNS.map((column) => [column, param(column)])),
      ...(sqlite ? { seq: nextSeq } : {}),
    } as AuditValues),
  )
  const append = (entry: AuditRecord) => Effect.asVoid(store.run(insert, auditRow(entry)))
  return {
    append,
    audited: (entry, change) => store.transaction(Effect.tap(change, () => append(entry))),
    auditedChange: (entry, run) =>
      store.transaction(
        Effect.flatMap(store.statement(run), (result) =>
          changed(result) ? Effect.as(append(entry), true) : Effect.succeed(false),
        ),
      ),
  }
}

/** The port's audit-log reads. */
export const auditLog = (store: SqlStore.SqlStore): Pick<SecretStore.SecretStore["Service"], "listAudit"> => {
  const postgres = store.database.dialect === "postgres"
  const byTime = postgres ? sql<string>`created_at collate "C"` : sql<string>`created_at`
  const target = postgres ? sql<string>`target_key collate "C"` : sql<string>`target_key`
  /** The project's records that `filter` matches (rule 12), as conditions of one query. */
  const matching = (db: Kysely<Tables>, projectId: string, filter: SecretStore.AuditFilter) => {
    let query = db.selectFrom("secrets_audit_log").selectAll().where("project_id", "=", projectId)
    const { actions, secretKey, userEmailKey, environmentId, apiKeyId } = filter
    if (actions !== undefined) query = query.where("action", "in", actions)
    if (secretKey !== undefined) {
      query = query.where((eb) =>
        eb.or([
          eb(target, "=", secretKey),
          eb.and([eb(target, ">=", `${secretKey}@`), eb(target, "<", `${secretKey}A`)]),
        ]),
      )
    }
    if (userEmailKey !== undefined) query = query.where("user_email_key", "=", userEmailKey)
    if (environmentId !== undefined) query = query.where("environment_id", "=", environmentId)
    if (apiKeyId !== undefined) query = query.where("api_key_id", "=", apiKeyId)
    return query
  }
  return {
    listAudit: ({ projectId, filter = {}, limit, offset }) =>
      // `in ()` is not SQL: with no action allowed, no record matches.
      filter.actions?.length === 0
        ? Effect.succeed([])
        : store
            .query((db) =>
              matching(db, projectId, filter)
                .orderBy(byTime, "desc")
                .orderBy("seq", "desc")
                .limit(limit)
                .offset(offset)
                .execute(),
            )
            .pipe(Effect.map((rows) => rows.map(toAudit))),
  }
}
