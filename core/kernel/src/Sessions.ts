/**
 * The Sessions port: who is signed in. A session is created at sign-in (OIDC or development login) and
 * named by a random cookie value; only the value's SHA-256 is stored, so a database leak hands out no
 * working sessions. Sessions last seven days and end early at logout or back-channel logout.
 *
 * Adapters supply a `SessionStore` (rows by hash); `make` builds the rules on top, so every adapter keeps
 * the same ones: a fresh random value at every sign-in, expiry checked on every read (an expired row counts
 * as absent), lookups by hash only.
 *
 * Each service keeps its own sessions (tables `schemas_sessions` / `secrets_sessions`): the host builds one
 * runtime per service, each with this port bound to that service's store.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Clock } from "./Clock.js"
import { Hasher } from "./Hasher.js"
import { Random } from "./Random.js"
import type { StoreUnavailable } from "./StoreUnavailable.js"

/** Seed 001 §8 and seed 000 alike: seven days. */
export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000
/** Session cookie values carry this prefix, like every other Coffer credential. */
export const SESSION_PREFIX = "cfss_"

export const Session = Schema.Struct({
  /** SHA-256 (hex) of the cookie value; never the value itself. */
  id: Schema.String,
  userId: Schema.String,
  email: Schema.String,
  /** The roles claim at sign-in (schemas); empty where roles do not apply. */
  groups: Schema.Array(Schema.String),
  /** The identity provider's issuer and subject; undefined for development login. */
  issuer: Schema.optional(Schema.String),
  subject: Schema.optional(Schema.String),
  /** The provider's `sid`, so back-channel logout can end exactly this session. */
  providerSessionId: Schema.optional(Schema.String),
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
})
export type Session = typeof Session.Type

export type NewSession = Omit<Session, "id" | "createdAt" | "expiresAt">

/** Which sessions a back-channel logout ends: one provider session, or every session of a subject. */
export interface SessionFilter {
  readonly issuer: string
  readonly subject?: string | undefined
  readonly providerSessionId?: string | undefined
}

/** The storage primitives an adapter supplies. Rows are keyed by `id` (the hash). */
export interface SessionStore {
  readonly insert: (session: Session) => Effect.Effect<void, StoreUnavailable>
  readonly find: (id: string) => Effect.Effect<Session | undefined, StoreUnavailable>
  readonly remove: (id: string) => Effect.Effect<void, StoreUnavailable>
  /** Removes every session matching the filter (all given fields must match); returns how many. */
  readonly removeWhere: (filter: SessionFilter) => Effect.Effect<number, StoreUnavailable>
  /** Removes sessions expired before `now`; housekeeping, never needed for correctness. */
  readonly removeExpired: (now: number) => Effect.Effect<number, StoreUnavailable>
}

export class Sessions extends Context.Service<
  Sessions,
  {
    /** A new session and its cookie value (returned once, never stored). */
    readonly create: (
      input: NewSession,
    ) => Effect.Effect<{ readonly token: string; readonly session: Session }, StoreUnavailable>
    /** The live session named by a cookie value; undefined when unknown or expired. */
    readonly get: (token: string) => Effect.Effect<Session | undefined, StoreUnavailable>
    readonly revoke: (token: string) => Effect.Effect<void, StoreUnavailable>
    readonly revokeWhere: (filter: SessionFilter) => Effect.Effect<number, StoreUnavailable>
    /** Housekeeping: deletes the sessions expired by now (reads already ignore them); answers how many. */
    readonly removeExpired: Effect.Effect<number, StoreUnavailable>
  }
>()("@coffer/kernel/Sessions") {}

export const make = Effect.fnUntraced(function* (store: SessionStore) {
  const random = yield* Random
  const hasher = yield* Hasher
  const clock = yield* Clock
  return Sessions.of({
    create: Effect.fnUntraced(function* (input: NewSession) {
      const token = yield* random.token(SESSION_PREFIX)
      const now = yield* clock.now
      const session: Session = {
        ...input,
        id: yield* hasher.sha256Hex(token),
        createdAt: now,
        expiresAt: now + SESSION_LIFETIME_MS,
      }
      yield* store.insert(session)
      return { token, session }
    }),
    get: Effect.fnUntraced(function* (token: string) {
      // A value of the wrong shape cannot name a session: skip the hash and the store round trip.
      if (!token.startsWith(SESSION_PREFIX) || token.length > 128) return undefined
      const session = yield* store.find(yield* hasher.sha256Hex(token))
      if (session === undefined) return undefined
      return session.expiresAt > (yield* clock.now) ? session : undefined
    }),
    revoke: Effect.fnUntraced(function* (token: string) {
      yield* store.remove(yield* hasher.sha256Hex(token))
    }),
    revokeWhere: store.removeWhere,
    removeExpired: Effect.flatMap(clock.now, store.removeExpired),
  })
})
