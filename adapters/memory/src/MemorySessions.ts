/**
 * Sessions kept in process memory: for tests, embedding and single-process development. The rules live in
 * the kernel's `Sessions.make`; this module only stores rows.
 */
import { type Clock, type Hasher, type Random, Sessions } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export const makeStore = (): Sessions.SessionStore => {
  const rows = new Map<string, Sessions.Session>()
  const matches = (session: Sessions.Session, filter: Sessions.SessionFilter) =>
    session.issuer === filter.issuer &&
    (filter.subject === undefined || session.subject === filter.subject) &&
    (filter.providerSessionId === undefined || session.providerSessionId === filter.providerSessionId)
  const removeIf = (predicate: (session: Sessions.Session) => boolean) =>
    Effect.sync(() => {
      let removed = 0
      for (const [id, session] of rows) {
        if (predicate(session)) {
          rows.delete(id)
          removed++
        }
      }
      return removed
    })
  return {
    insert: (session) => Effect.sync(() => void rows.set(session.id, session)),
    find: (id) => Effect.sync(() => rows.get(id)),
    remove: (id) => Effect.sync(() => void rows.delete(id)),
    removeWhere: (filter) => removeIf((session) => matches(session, filter)),
    removeExpired: (now) => removeIf((session) => session.expiresAt <= now),
  }
}

/** The Sessions port on a fresh in-memory store; needs Random, Hasher and Clock. */
export const layer: Layer.Layer<Sessions.Sessions, never, Random.Random | Hasher.Hasher | Clock.Clock> = Layer.effect(
  Sessions.Sessions,
  Effect.suspend(() => Sessions.make(makeStore())),
)
