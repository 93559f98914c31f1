/**
 * The Sessions contract: the rules of `@coffer/kernel`'s Sessions port (random value per sign-in, only its
 * SHA-256 stored, expiry on read, revocation one by one or by issuer with subject or provider session id),
 * checked through each adapter's `SessionStore` under the kernel's `Sessions.make` and `Sessions.makeCached`, as
 * the hosts run them.
 *
 * A backend gives one store per service over the same storage (one database), so that the suite can also check
 * that the two services' sessions never meet, and a dump of everything stored, so that it can check what a
 * leaked database would hand out. `makeBackend` runs once per test and must start empty.
 */
import { MemoryCache } from "@coffer/adapter-memory"
import { Cache, Clock, Hasher, Random, Sessions } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { describe, expect, it } from "vitest"
import { behindSwitch } from "./cacheSwitch.js"

export type SessionService = "schemas" | "secrets"

export interface SessionsBackend {
  /** The store of one service's sessions; both share the backend's storage. */
  readonly store: (service: SessionService) => Sessions.SessionStore
  /** Every stored session row of both services, exactly as stored. */
  readonly dump: Effect.Effect<ReadonlyArray<unknown>>
}

const START = Date.UTC(2026, 0, 31, 12, 0, 0)
const DAY = 24 * 60 * 60 * 1000

const oidcSession = (overrides: Partial<Sessions.NewSession> = {}): Sessions.NewSession => ({
  userId: "user-1",
  email: "ada@example.com",
  groups: ["editors", "admins"],
  issuer: "https://id.example.com",
  subject: "sub-1",
  providerSessionId: "sid-1",
  ...overrides,
})

const devSession: Sessions.NewSession = { userId: "dev:bob@example.com", email: "bob@example.com", groups: [] }

/**
 * The suite runs twice: with `Sessions.make` (every lookup a store read) and with `Sessions.makeCached` over one
 * cache that both services share, as the hosts run it with Redis or on Postgres: every rule holds either way.
 */
export const sessionsSuite = (
  name: string,
  makeBackend: () => Effect.Effect<SessionsBackend, unknown, Scope.Scope>,
) => {
  suiteOf(name, makeBackend, false)
  suiteOf(`${name}, lookups cached`, makeBackend, true)
}

interface Fixture {
  readonly backend: SessionsBackend
  readonly clock: ReturnType<typeof Clock.makeManual>
  readonly hasher: Hasher.Hasher["Service"]
  readonly random: Random.Random["Service"]
  /** The cache's switch: `down` fails every call as an outage does. */
  readonly cache: { down: boolean }
  readonly schemas: Sessions.Sessions["Service"]
  readonly secrets: Sessions.Sessions["Service"]
}

type Run = <A, E>(test: (fixture: Fixture) => Effect.Effect<A, E>) => Promise<A>

const suiteOf = (
  name: string,
  makeBackend: () => Effect.Effect<SessionsBackend, unknown, Scope.Scope>,
  cached: boolean,
) => {
  const setup = Effect.gen(function* () {
    const backend = yield* makeBackend()
    const clock = Clock.makeManual(START)
    const cacheState = { down: false }
    const cache = behindSwitch(yield* MemoryCache.make, cacheState)
    const sessionsOf = (service: SessionService) =>
      (cached
        ? Sessions.makeCached(backend.store(service), Sessions.caching(service))
        : Sessions.make(backend.store(service))
      ).pipe(
        Effect.provideService(Clock.Clock, clock.clock),
        Effect.provideService(Cache.Cache, cache),
        Effect.provide([Random.layer, Hasher.layer]),
      )
    const { hasher, random } = yield* Effect.all({ hasher: Hasher.Hasher, random: Random.Random }).pipe(
      Effect.provide([Random.layer, Hasher.layer]),
    )
    return {
      backend,
      clock,
      hasher,
      random,
      cache: cacheState,
      schemas: yield* sessionsOf("schemas"),
      secrets: yield* sessionsOf("secrets"),
    }
  })
  const run: Run = (test) => Effect.runPromise(Effect.scoped(Effect.flatMap(setup, test)))

  if (cached) cachedOnly(name, run)

  describe(`Sessions contract: ${name}`, () => {
    it("creates a session and finds it by its cookie value, every field intact", () =>
      run(({ secrets, hasher }) =>
        Effect.gen(function* () {
          const input = oidcSession({ email: "zoë@例え.jp", groups: ["équipe", "日本"] })
          const { token, session } = yield* secrets.create(input)
          expect(token.startsWith(Sessions.SESSION_PREFIX)).toBe(true)
          expect(session).toEqual({
            ...input,
            id: yield* hasher.sha256Hex(token),
            createdAt: START,
            expiresAt: START + Sessions.SESSION_LIFETIME_MS,
          })
          expect(yield* secrets.get(token)).toEqual(session)
        }),
      ))

    it("keeps a development session's absent issuer, subject and provider session id absent", () =>
      run(({ schemas }) =>
        Effect.gen(function* () {
          const { token } = yield* schemas.create(devSession)
          const found = yield* schemas.get(token)
          expect(found).toEqual({
            ...devSession,
            id: expect.any(String),
            createdAt: START,
            expiresAt: START + Sessions.SESSION_LIFETIME_MS,
          })
          expect(found).not.toHaveProperty("issuer")
          expect(found).not.toHaveProperty("subject")
          expect(found).not.toHaveProperty("providerSessionId")
        }),
      ))

    it("answers undefined for unknown and malformed values", () =>
      run(({ secrets, random }) =>
        Effect.gen(function* () {
          yield* secrets.create(oidcSession())
          const unknown = yield* random.token(Sessions.SESSION_PREFIX)
          for (const token of [unknown, "", "cfss_", "garbage", "cfss_' or 1=1 --", `cfss_${"a".repeat(500)}`]) {
            expect(yield* secrets.get(token)).toBeUndefined()
          }
        }),
      ))

    it("gives a new random value and id at every sign-in, even for the same person", () =>
      run(({ secrets }) =>
        Effect.gen(function* () {
          const first = yield* secrets.create(oidcSession())
          const second = yield* secrets.create(oidcSession())
          expect(second.token).not.toBe(first.token)
          expect(second.session.id).not.toBe(first.session.id)
          expect((yield* secrets.get(first.token))?.id).toBe(first.session.id)
          expect((yield* secrets.get(second.token))?.id).toBe(second.session.id)
        }),
      ))

    it("counts a session as ended once seven days have passed", () =>
      run(({ secrets, clock }) =>
        Effect.gen(function* () {
          const { token } = yield* secrets.create(oidcSession())
          clock.set(START + 7 * DAY - 1)
          expect(yield* secrets.get(token)).toBeDefined()
          clock.set(START + 7 * DAY)
          expect(yield* secrets.get(token)).toBeUndefined()
          clock.set(START + 30 * DAY)
          expect(yield* secrets.get(token)).toBeUndefined()
        }),
      ))

    it("stores only the SHA-256 of the cookie value, never the value or its random part", () =>
      run(({ schemas, secrets, backend, hasher }) =>
        Effect.gen(function* () {
          const created = [yield* schemas.create(oidcSession()), yield* secrets.create(devSession)]
          const stored = JSON.stringify(yield* backend.dump)
          for (const { token } of created) {
            expect(stored).toContain(yield* hasher.sha256Hex(token))
            expect(stored).not.toContain(token)
            expect(stored).not.toContain(token.slice(Sessions.SESSION_PREFIX.length))
          }
        }),
      ))

    it("revokes one session at once and leaves the others", () =>
      run(({ secrets }) =>
        Effect.gen(function* () {
          const ended = yield* secrets.create(oidcSession())
          const kept = yield* secrets.create(oidcSession())
          yield* secrets.revoke(ended.token)
          expect(yield* secrets.get(ended.token)).toBeUndefined()
          expect(yield* secrets.get(kept.token)).toBeDefined()
          // Revoking twice, or a value that never named a session, is not an error.
          yield* secrets.revoke(ended.token)
          yield* secrets.revoke("cfss_nothing")
        }),
      ))

    it("revokes by issuer and provider session id: exactly that session", () =>
      run(({ secrets }) =>
        Effect.gen(function* () {
          const target = yield* secrets.create(oidcSession())
          const sameSubjectOtherSid = yield* secrets.create(oidcSession({ providerSessionId: "sid-2" }))
          const sameSidOtherIssuer = yield* secrets.create(oidcSession({ issuer: "https://other.example.com" }))
          const development = yield* secrets.create(devSession)
          expect(yield* secrets.revokeWhere({ issuer: "https://id.example.com", providerSessionId: "sid-1" })).toBe(1)
          expect(yield* secrets.get(target.token)).toBeUndefined()
          for (const kept of [sameSubjectOtherSid, sameSidOtherIssuer, development]) {
            expect(yield* secrets.get(kept.token)).toBeDefined()
          }
          expect(yield* secrets.revokeWhere({ issuer: "https://id.example.com", providerSessionId: "sid-1" })).toBe(0)
        }),
      ))

    it("revokes by issuer and subject: every session of that person at that issuer, nobody else's", () =>
      run(({ secrets }) =>
        Effect.gen(function* () {
          const ended = [
            yield* secrets.create(oidcSession()),
            yield* secrets.create(oidcSession({ providerSessionId: "sid-2" })),
            yield* secrets.create(oidcSession({ providerSessionId: undefined })),
          ]
          const kept = [
            yield* secrets.create(oidcSession({ subject: "sub-2", providerSessionId: "sid-3" })),
            yield* secrets.create(oidcSession({ issuer: "https://other.example.com" })),
            yield* secrets.create(devSession),
          ]
          expect(yield* secrets.revokeWhere({ issuer: "https://id.example.com", subject: "sub-1" })).toBe(3)
          for (const { token } of ended) expect(yield* secrets.get(token)).toBeUndefined()
          for (const { token } of kept) expect(yield* secrets.get(token)).toBeDefined()
        }),
      ))

    it("requires every given field of a filter to match", () =>
      run(({ secrets }) =>
        Effect.gen(function* () {
          const session = yield* secrets.create(oidcSession())
          const filter = { issuer: "https://id.example.com", subject: "sub-2", providerSessionId: "sid-1" }
          expect(yield* secrets.revokeWhere(filter)).toBe(0)
          expect(yield* secrets.get(session.token)).toBeDefined()
        }),
      ))

    it("keeps the two services' sessions apart", () =>
      run(({ schemas, secrets }) =>
        Effect.gen(function* () {
          const inSchemas = yield* schemas.create(oidcSession())
          const inSecrets = yield* secrets.create(oidcSession())
          expect(yield* secrets.get(inSchemas.token)).toBeUndefined()
          expect(yield* schemas.get(inSecrets.token)).toBeUndefined()
          yield* secrets.revoke(inSchemas.token)
          expect(yield* schemas.get(inSchemas.token)).toBeDefined()
          expect(yield* secrets.revokeWhere({ issuer: "https://id.example.com", subject: "sub-1" })).toBe(1)
          expect(yield* schemas.get(inSchemas.token)).toBeDefined()
          expect(yield* secrets.get(inSecrets.token)).toBeUndefined()
        }),
      ))

    it("removes expired sessions on housekeeping, and only those", () =>
      run(({ secrets, backend, clock }) =>
        Effect.gen(function* () {
          const old = yield* secrets.create(oidcSession())
          clock.set(START + DAY)
          const fresh = yield* secrets.create(oidcSession())
          const store = backend.store("secrets")
          expect(yield* store.removeExpired(START + 7 * DAY)).toBe(1)
          expect(yield* store.find(old.session.id)).toBeUndefined()
          expect(yield* store.find(fresh.session.id)).toEqual(fresh.session)
        }),
      ))
  })
}

/** The rules only cached lookups have: what the cache answers, and what happens while it cannot be reached. */
const cachedOnly = (name: string, run: Run) =>
  describe(`Sessions contract, cached lookups: ${name}`, () => {
    it("answers a looked-up session from the cache: the store is not read again until sessions end", () =>
      run(({ secrets, backend }) =>
        Effect.gen(function* () {
          const { token, session } = yield* secrets.create(oidcSession())
          const other = yield* secrets.create(devSession)
          expect(yield* secrets.get(token)).toEqual(session)
          // Removed behind the rules' back: only a cached answer can still find it.
          yield* backend.store("secrets").remove(session.id)
          expect(yield* secrets.get(token)).toEqual(session)
          yield* secrets.revoke(other.token)
          expect(yield* secrets.get(token)).toBeUndefined()
        }),
      ))

    it("refuses a looked-up session on the next lookup once it is revoked, alone or by a filter", () =>
      run(({ secrets }) =>
        Effect.gen(function* () {
          const alone = yield* secrets.create(oidcSession())
          const byFilter = yield* secrets.create(oidcSession({ subject: "sub-2", providerSessionId: "sid-2" }))
          const kept = yield* secrets.create(devSession)
          for (const { token } of [alone, byFilter, kept]) expect(yield* secrets.get(token)).toBeDefined()
          yield* secrets.revoke(alone.token)
          expect(yield* secrets.get(alone.token)).toBeUndefined()
          expect(yield* secrets.revokeWhere({ issuer: "https://id.example.com", subject: "sub-2" })).toBe(1)
          expect(yield* secrets.get(byFilter.token)).toBeUndefined()
          expect(yield* secrets.get(kept.token)).toBeDefined()
        }),
      ))

    it("reads the store while the cache cannot be reached, and ends no session it could not tell", () =>
      run(({ secrets, cache }) =>
        Effect.gen(function* () {
          const { token, session } = yield* secrets.create(oidcSession())
          cache.down = true
          expect(yield* secrets.get(token)).toEqual(session)
          expect(yield* Effect.flip(secrets.revoke(token))).toMatchObject({ _tag: "StoreUnavailable" })
          expect(yield* Effect.flip(secrets.revokeWhere({ issuer: "https://id.example.com" }))).toMatchObject({
            _tag: "StoreUnavailable",
          })
          cache.down = false
          expect(yield* secrets.get(token)).toEqual(session)
          yield* secrets.revoke(token)
          expect(yield* secrets.get(token)).toBeUndefined()
        }),
      ))
  })
