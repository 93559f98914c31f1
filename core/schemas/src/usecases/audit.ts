/**
 * The audit log of the schemas service in one place: appending an entry (every audited use case calls `audit`)
 * and reading the log (admin permission): deletions of platforms and versions, kind changes, token creation and
 * revocation, newest first, a page at a time.
 *
 * Paging is by cursor, not offset, so that entries written while someone pages never shift a page: a page ends
 * with `next`, an opaque string (`<epoch ms>.<entry id>` of its last entry), which the following request passes
 * as `before`. A page shorter than `limit`, or empty, has no `next`.
 */
import { BadRequest, Clock, type Forbidden, Random, type StoreUnavailable, sortableId } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { type Actor, requireManager } from "../access.js"
import { type AuditAction, type AuditCursor, type AuditEntry, SchemaStore } from "../SchemaStore.js"

/** Appends an audit entry stamped now. */
export const audit = Effect.fnUntraced(function* (
  actor: string,
  action: AuditAction,
  target: string,
  detail?: AuditEntry["detail"],
): Effect.fn.Return<void, StoreUnavailable, SchemaStore | Clock.Clock | Random.Random> {
  const at = yield* Clock.Clock.use((clock) => clock.now)
  // Time-ordered, so entries of one millisecond still list newest first.
  const id = sortableId(at, yield* Random.Random.use((random) => random.id))
  yield* SchemaStore.use((store) => store.appendAudit({ id, at, actor, action, target, detail }))
})

export const DEFAULT_AUDIT_PAGE = 50
export const MAX_AUDIT_PAGE = 200

export const encodeCursor = (entry: AuditCursor): string => `${entry.at}.${entry.id}`

/** Only what `encodeCursor` writes: its milliseconds without a leading zero, as every number in a query is read. */
export const decodeCursor = (cursor: string): AuditCursor | undefined => {
  const match = /^(0|[1-9]\d{0,14})\.([A-Za-z0-9_-]{1,64})$/.exec(cursor)
  return match === null ? undefined : { at: Number(match[1]), id: match[2]! }
}

export interface AuditPage {
  readonly entries: ReadonlyArray<AuditEntry>
  readonly next: string | undefined
}

export const listAudit = Effect.fn("Schemas.listAudit")(function* (
  actor: Actor,
  options: { readonly limit?: number | undefined; readonly before?: string | undefined },
): Effect.fn.Return<AuditPage, Forbidden | BadRequest | StoreUnavailable, SchemaStore> {
  yield* requireManager(actor)
  const limit = options.limit ?? DEFAULT_AUDIT_PAGE
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_AUDIT_PAGE) {
    return yield* new BadRequest({ message: `limit must be a whole number from 1 to ${MAX_AUDIT_PAGE}` })
  }
  const before = options.before === undefined ? undefined : decodeCursor(options.before)
  if (options.before !== undefined && before === undefined) {
    return yield* new BadRequest({ message: "before must be the next value of a previous page" })
  }
  const entries = yield* SchemaStore.use((store) => store.listAudit({ limit, before }))
  const last = entries.at(-1)
  return { entries, next: entries.length === limit && last !== undefined ? encodeCursor(last) : undefined }
})
