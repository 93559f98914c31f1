/**
 * The audit log of a project (seed 001 §2 and §4 "Audit log"): building the record of a change (who, through which
 * API key if any, from where, what, on which target, when), which the store writes in the same transaction as the
 * change, and reading the log newest first, narrowed by the filters of `./auditFilter.ts` and paged with `limit` (1
 * to 500, default 50) and `offset` (from 0, default 0) over what the filters leave. Readable by everyone who may read the project,
 * keys included ("read ... logs", §5). Query values are checked here, as text, by the rule both services read query
 * numbers with (`@coffer/kernel` `parseWholeNumber`), so that `limit=1e2`, `limit=10abc`, `limit=010` or `limit=`
 * are refused rather than read as something the actor did not write.
 *
 * Ids come from the kernel's `sortableId`, like the schemas log's; the order of records of one millisecond is the
 * store's (SecretStore rule 6: the order they were appended).
 */
import { Clock, parseWholeNumber, Random, sortableId } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { type Actor, reachFor } from "../access.js"
import { type AuditEvent, targetKey } from "../domain/audit.js"
import { type AuditRecord, SecretStore } from "../SecretStore.js"
import { auditView } from "../views.js"
import { type AuditFilterQuery, parseAuditFilter } from "./auditFilter.js"

/** The audit record of `event`, done by `actor` in project `projectId` (and environment, where there is one). */
export const auditRecord = (
  actor: Actor,
  projectId: string,
  environmentId: string | null,
  event: AuditEvent,
): Effect.Effect<AuditRecord, never, Clock.Clock | Random.Random> =>
  Effect.map(auditDraft(actor, event), (draft) => ({ ...draft, projectId, environmentId }))

/** The record of `event` before the project and environment are known: `readSecretAt` fills them in as it finds them. */
export const auditDraft = Effect.fnUntraced(function* (actor: Actor, event: AuditEvent) {
  const now = yield* Clock.Clock.use((clock) => clock.now)
  const random = yield* Random.Random.use((random) => random.id)
  const record: Omit<AuditRecord, "projectId" | "environmentId"> = {
    id: sortableId(now, random),
    userId: actor.userId,
    userEmail: actor.email,
    action: event.action,
    targetKey: targetKey(event),
    ipAddress: actor.ipAddress,
    // Every record is made here, so every action done with a key names it: a leaked key's trail is its own.
    apiKey: actor.kind === "apiKey" ? { id: actor.keyId, name: actor.keyName } : null,
    createdAt: now,
  }
  return record
})

export const DEFAULT_AUDIT_LIMIT = 50
export const MAX_AUDIT_LIMIT = 500
/** Postgres's `integer`, so an offset never overflows a query parameter. */
export const MAX_AUDIT_OFFSET = 2_147_483_647

/** A query number by the kernel's one rule for both services (`parseWholeNumber`), or `fallback` when absent. */
const parseBounded = (name: string, text: string | undefined, fallback: number, min: number, max: number) =>
  Effect.map(Effect.fromResult(parseWholeNumber(name, text, { min, max })), (value) => value ?? fallback)

/** `limit` and `offset` as given in the query string (absent: the defaults). */
export const parsePage = (query: { readonly limit?: string | undefined; readonly offset?: string | undefined }) =>
  Effect.all({
    limit: parseBounded("limit", query.limit, DEFAULT_AUDIT_LIMIT, 1, MAX_AUDIT_LIMIT),
    offset: parseBounded("offset", query.offset, 0, 0, MAX_AUDIT_OFFSET),
  })

/** The audit log's query string as the request gives it: paging and filters, each text or absent. */
export interface AuditLogQuery extends AuditFilterQuery {
  readonly limit?: string | undefined
  readonly offset?: string | undefined
}

export const listAuditLog = Effect.fn("Secrets.listAuditLog")(function* (
  actor: Actor,
  slug: string,
  query: AuditLogQuery,
) {
  const access = yield* reachFor(actor, slug, "read")
  const page = yield* parsePage(query)
  const filter = yield* parseAuditFilter(access, query)
  const store = yield* SecretStore
  const entries = yield* store.listAudit({ projectId: access.project.id, filter, ...page })
  return { auditLog: entries.map(auditView) }
})
