/**
 * One housekeeping pass of the secrets service (`@coffer/kernel` `Housekeeping`): expired sessions and spent
 * invites (used or expired: accepting either answers 404 with or without its row) are deleted. Rate-limit windows
 * need nothing: they are cache entries that expire by themselves.
 */
import { Clock, Sessions, type StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { SecretStore } from "../SecretStore.js"

export interface HousekeepingReport {
  readonly sessions: number
  readonly invites: number
}

export const secretsHousekeeping: Effect.Effect<
  HousekeepingReport,
  StoreUnavailable,
  SecretStore | Sessions.Sessions | Clock.Clock
> = Effect.gen(function* () {
  const now = yield* Clock.Clock.use((clock) => clock.now)
  const sessions = yield* Sessions.Sessions.use((sessions) => sessions.removeExpired)
  const invites = yield* SecretStore.use((store) => store.removeSpentInvites(now))
  return { sessions, invites }
}).pipe(Effect.withSpan("Secrets.housekeeping"))
