/**
 * The Sessions contract: the rules of `@coffer/kernel`'s Sessions port (random value per sign-in, only its
 * SHA-256 stored, expiry on read, revocation one by one or by issuer with subject or provider session id),
 * checked through each adapter's `SessionStore` under the kernel's `Sessions.make`, as the hosts run it.
 *
 * A backend gives one store per service over the same storage (one database), so that the suite can also check
 * that the two services' sessions never meet, and a dump of everything stored, so that it can check what a
 * leaked database would hand out. `makeBackend` runs once per test and must start empty.
 */
import { Clock, Hasher, Random, Sessions } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { describe, expect, it } from "vitest"

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

export const sessionsSuite = (
  name: string,
  makeBackend: () => Effect.Effect<SessionsBackend, unknown, Scope.Scope>,
) => {
  const setup = Effect.gen(function* () {
    const backend = yield* makeBackend()
    const clock = Clock.makeManual(START)
    const sessionsOf = (service: SessionService) =>
      Sessions.make(backend.store(service)).pipe(
        Effect.provideService(Clock.Clock, clock.clock),
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
      schemas: yield* sessionsOf("schemas"),
      secrets: yield* sessionsOf("secrets"),
    }
  })
  type Fixture = Effect.Success<typeof setup>
  const run = <A, E>(test: (fixture: Fixture) => Effect.Effect<A, E>): Promise<A> =>
    Effect.runPromise(Effect.scoped(Effect.flatMap(setup, test)))

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
