/**
 * Building audit records (seed 001 §2): who, from where, what, on which target, when. The record is handed to the
 * store together with the change it describes, which writes both in one transaction.
 *
 * Ids come from the kernel's `sortableId`, so stores order "newest first" by `createdAt, id` exactly.
 */
import { Clock, Random, sortableId } from "@coffer/kernel"
import { Effect } from "effect"
import type { Caller } from "./Caller.js"
import { type AuditEvent, targetKey } from "./domain/audit.js"
import type { AuditRecord } from "./SecretStore.js"

export const iso = (millis: number): string => new Date(millis).toISOString()

/** The audit record of `event`, done by `caller` in project `projectId` (and environment, where there is one). */
export const auditRecord = Effect.fnUntraced(function* (
  caller: Caller,
  projectId: string,
  environmentId: string | null,
  event: AuditEvent,
) {
  const now = yield* Clock.Clock.use((clock) => clock.now)
  const random = yield* Random.Random.use((random) => random.id)
  const record: AuditRecord = {
    id: sortableId(now, random),
    projectId,
    environmentId,
    userId: caller.userId,
    userEmail: caller.email,
    action: event.action,
    targetKey: targetKey(event),
    ipAddress: caller.ipAddress,
    createdAt: iso(now),
  }
  return record
})
