/**
 * The audit log of the SQL schema store: appended one entry at a time, paged newest first by `at`, then `id`
 * (port rule 9), the cursor excluding its own entry and everything newer.
 */

import { fromIso, toIso } from "@coffer/kernel"
import type { AuditEntry, SchemaStore } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import type * as SqlStore from "../SqlStore.js"
import { json } from "./rows.js"

export type AuditPart = Pick<SchemaStore["Service"], "appendAudit" | "listAudit">

export const auditLog = ({ query }: SqlStore.SqlStore): AuditPart => ({
  appendAudit: (entry) =>
    query((db) =>
      db
        .insertInto("schemas_audit")
        .values({
          id: entry.id,
          at: toIso(entry.at),
          actor: entry.actor,
          action: entry.action,
          target: entry.target,
          detail: entry.detail === undefined ? null : json(entry.detail),
        })
        .execute(),
    ).pipe(Effect.asVoid),
  listAudit: ({ limit, before }) =>
    query((db) => {
      let statement = db.selectFrom("schemas_audit").selectAll()
      if (before !== undefined) {
        const at = toIso(before.at)
        statement = statement.where((eb) =>
          eb.or([eb("at", "<", at), eb.and([eb("at", "=", at), eb("id", "<", before.id)])]),
        )
      }
      return statement.orderBy("at", "desc").orderBy("id", "desc").limit(limit).execute()
    }).pipe(
      Effect.map((rows) =>
        rows.map(
          (row): AuditEntry => ({
            id: row.id,
            at: fromIso(row.at),
            actor: row.actor,
            action: row.action as AuditEntry["action"],
            target: row.target,
            detail: row.detail === null ? undefined : (JSON.parse(row.detail) as AuditEntry["detail"]),
          }),
        ),
      ),
    ),
})
