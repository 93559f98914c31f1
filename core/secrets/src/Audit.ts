/**
 * Building audit records (seed 001 §2): who, from where, what, on which target, when. The record is handed to the
 * store together with the change it describes, which writes both in one transaction.
 *
 * Ids sort in the order records were made within a process (time in milliseconds, then a counter for records made
 * in the same millisecond, then randomness), so "newest first" is exact for one instance's records even when
 * several land in one millisecond, and stores can order by `createdAt, id` without a database sequence.
 */
import { Clock, Random } from "@coffer/kernel"
import { Effect } from "effect"
import type { Caller } from "./Caller.js"
import { type AuditEvent, targetKey } from "./domain/audit.js"
import type { AuditRecord } from "./SecretStore.js"

let lastMillis = -1
let sameMillisCount = 0

/** A time-ordered id: 9 base-36 digits of milliseconds (good until the year 5188), 4 of counter, then random. */
export const sortableId = (millis: number, random: string): string => {
  if (millis === lastMillis) sameMillisCount++
  else {
    lastMillis = millis
    sameMillisCount = 0
  }
  return `${millis.toString(36).padStart(9, "0")}${sameMillisCount.toString(36).padStart(4, "0")}${random}`
}

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
