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
import type * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { Cache } from "./Cache.js"
import { Clock } from "./Clock.js"
import * as Generation from "./Generation.js"
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

/** How long a session found in the store is cached, where sessions are cached; a renewal abandons it sooner. */
export const SESSION_CHECK_TTL_MS = 60_000

/** Where one service's session lookups are cached (`makeCached`): their generation and their entries' keys. */
export interface Caching {
  readonly generation: Generation.Generation
  readonly entryKey: (id: string) => string
}

export const caching = (service: string): Caching => ({
  generation: Generation.make(`${service}:sessions:generation`, `${service} session lookups`),
  entryKey: (id) => `${service}:session:${id}`,
})

/** Every instance that caches one service's sessions runs this: it forgets the generation a change announces. */
export const listener = (service: string): Layer.Layer<never, never, Cache> =>
  Generation.listener(caching(service).generation)

/** How the rules reach the store: straight, or through the cache (`makeCached`). */
interface Access {
  readonly find: (id: string) => Effect.Effect<Session | undefined, StoreUnavailable>
  /** Runs a removal, with whatever must surround it. */
  readonly removing: <A>(removal: Effect.Effect<A, StoreUnavailable>) => Effect.Effect<A, StoreUnavailable>
}

const build = Effect.fnUntraced(function* (store: SessionStore, access: Access) {
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
      const session = yield* access.find(yield* hasher.sha256Hex(token))
      if (session === undefined) return undefined
      return session.expiresAt > (yield* clock.now) ? session : undefined
    }),
    revoke: Effect.fnUntraced(function* (token: string) {
      yield* access.removing(store.remove(yield* hasher.sha256Hex(token)))
    }),
    revokeWhere: (filter) => access.removing(store.removeWhere(filter)),
    removeExpired: Effect.flatMap(clock.now, store.removeExpired),
  })
})

/** The rules over `store`, every lookup a store read. */
export const make = (store: SessionStore): Effect.Effect<Sessions["Service"], never, Random | Hasher | Clock> =>
  build(store, { find: store.find, removing: (removal) => removal })

/**
 * The rules over `store`, lookups through the Cache port (kernel `Generation.makeLookup`): a busy session costs no
 * store read per request. Ending sessions (logout, back-channel logout, an operator's unlink) runs between two
 * renewals of the generation (`Generation.renewingAround`), so an ended session is refused on the next request, and
 * is refused (503) while the cache cannot be told. Only for deployments where every process that ends sessions
 * reaches the cache the services read (Redis, or Postgres carrying the announcements); expiry is still checked on
 * every lookup, against the cached `expiresAt`.
 */
export const makeCached = (
  store: SessionStore,
  { generation, entryKey }: Caching,
): Effect.Effect<Sessions["Service"], never, Random | Hasher | Clock | Cache> =>
  // Exactly the two services the lookups and renewals need, so nothing of the request's own context is shadowed.
  Effect.flatMap(Effect.all([Effect.service(Cache), Effect.service(Random)]), ([cache, random]) => {
    const context = Context.make(Cache, cache).pipe(Context.add(Random, random))
    const lookup = Generation.makeLookup(generation, {
      entryKey,
      ttlMs: SESSION_CHECK_TTL_MS,
      value: Session,
    })
    const renewing = Generation.renewingAround(generation)
    return build(store, {
      find: (id) => Effect.provideContext(lookup(id, store.find(id)), context),
      removing: (removal) => Effect.provideContext(renewing(removal), context),
    })
  })
