/**
 * The Accounts contract: the rules written on `@coffer/secrets`' Accounts port, as tests every adapter runs.
 * `makeLayer` is built once per test and must start empty; the suite supplies Random and a manual Clock, so
 * creation times are known and ordering by them is checked.
 *
 * The sign-in use case (`signIn`, `developmentSignIn`) runs here too, on each adapter: its answers under races
 * and collisions depend on how the store reports them, so it is checked against every store.
 */
import { MemoryCache } from "@coffer/adapter-memory"
import { Clock, Random } from "@coffer/kernel"
import { AccountLinkRequired, Accounts, DEVELOPMENT_ISSUER, developmentSignIn, signIn } from "@coffer/secrets"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"

const START = Date.UTC(2026, 0, 31, 12, 0, 0)
const ISSUER = "https://id.example.com"
const OTHER_ISSUER = "https://other.example.com"

export const accountsSuite = (
  name: string,
  makeLayer: () => Layer.Layer<Accounts.Accounts, unknown, Random.Random | Clock.Clock>,
) => {
  const run = <A, E>(
    test: (accounts: Accounts.Accounts["Service"], clock: ReturnType<typeof Clock.makeManual>) => Effect.Effect<A, E>,
  ): Promise<A> => {
    const clock = Clock.makeManual(START)
    const layer = makeLayer().pipe(Layer.provide([Random.layer, Layer.succeed(Clock.Clock, clock.clock)]))
    // Built in the test's own scope, so the store lives until the test ends.
    return Effect.runPromise(
      Effect.scoped(
        Effect.flatMap(Layer.build(layer), (context) => test(Context.get(context, Accounts.Accounts), clock)),
      ),
    )
  }

  describe(`Accounts contract: ${name}`, () => {
    it("creates an account with its first identity and finds it by identity, id and e-mail", () =>
      run((accounts) =>
        Effect.gen(function* () {
          const user = yield* accounts.create({ email: "Ada@Example.com", issuer: ISSUER, subject: "sub-1" })
          expect(user).toEqual({
            id: expect.any(String),
            email: "Ada@Example.com",
            createdAt: START,
          })
          expect(user.id).not.toBe("")
          expect(yield* accounts.findByIdentity(ISSUER, "sub-1")).toEqual(user)
          expect(yield* accounts.findById(user.id)).toEqual(user)
          for (const email of ["Ada@Example.com", "ada@example.com", "ADA@EXAMPLE.COM"]) {
            expect(yield* accounts.findByEmail(email)).toEqual(user)
          }
        }),
      ))

    it("compares e-mail addresses beyond ASCII case-insensitively, in any Unicode normal form", () =>
      run((accounts) =>
        Effect.gen(function* () {
          const user = yield* accounts.create({ email: "ÉLODIE@exemple.fr", issuer: ISSUER, subject: "sub-1" })
          expect(yield* accounts.findByEmail("élodie@exemple.fr")).toEqual(user)
          // "e" followed by a combining acute accent is the same address once normalised.
          expect(yield* accounts.findByEmail("e\u0301lodie@exemple.fr")).toEqual(user)
          expect(yield* accounts.findByEmail("elodie@exemple.fr")).toBeUndefined()
        }),
      ))

    it("answers undefined for what does not exist", () =>
      run((accounts) =>
        Effect.gen(function* () {
          yield* accounts.create({ email: "ada@example.com", issuer: ISSUER, subject: "sub-1" })
          expect(yield* accounts.findByIdentity(ISSUER, "sub-2")).toBeUndefined()
          expect(yield* accounts.findByIdentity(OTHER_ISSUER, "sub-1")).toBeUndefined()
          expect(yield* accounts.findById("no-such-id")).toBeUndefined()
          expect(yield* accounts.findByEmail("bob@example.com")).toBeUndefined()
          // Matching is exact: no wildcard or prefix semantics leak through.
          expect(yield* accounts.findByEmail("%@example.com")).toBeUndefined()
          expect(yield* accounts.findByEmail("ada@example.co")).toBeUndefined()
        }),
      ))

    it("refuses a second account for a known identity or a known e-mail, and creates nothing", () =>
      run((accounts) =>
        Effect.gen(function* () {
          const ada = yield* accounts.create({ email: "ada@example.com", issuer: ISSUER, subject: "sub-1" })
          const sameIdentity = yield* Effect.flip(
            accounts.create({ email: "other@example.com", issuer: ISSUER, subject: "sub-1" }),
          )
          expect(sameIdentity).toMatchObject({
            _tag: "IdentityTaken",
            message: "This identity already signs in to an account",
          })
          expect(yield* accounts.findByEmail("other@example.com")).toBeUndefined()
          const sameEmail = yield* Effect.flip(
            accounts.create({ email: "ADA@example.com", issuer: OTHER_ISSUER, subject: "sub-9" }),
          )
          expect(sameEmail).toMatchObject({ _tag: "EmailTaken", message: "Another account has this e-mail address" })
          expect(yield* accounts.findByIdentity(OTHER_ISSUER, "sub-9")).toBeUndefined()
          expect(yield* accounts.list()).toEqual([
            { ...ada, identities: [{ issuer: ISSUER, subject: "sub-1", createdAt: ada.createdAt }] },
          ])
        }),
      ))

    it("lets exactly one of several racing first sign-ins with one e-mail create the account", () =>
      run((accounts) =>
        Effect.gen(function* () {
          const attempts = yield* Effect.all(
            Array.from({ length: 6 }, (_, i) =>
              Effect.result(accounts.create({ email: "race@example.com", issuer: ISSUER, subject: `racer-${i}` })),
            ),
            { concurrency: "unbounded" },
          )
          expect(attempts.filter((attempt) => attempt._tag === "Success")).toHaveLength(1)
          for (const attempt of attempts) {
            if (attempt._tag === "Failure") expect(attempt.failure._tag).toBe("EmailTaken")
          }
          const listed = yield* accounts.list()
          expect(listed).toHaveLength(1)
          expect(listed[0]?.identities).toHaveLength(1)
        }),
      ))

    it("gives every account its own id", () =>
      run((accounts) =>
        Effect.gen(function* () {
          const users = yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => i),
            (i) => accounts.create({ email: `user${i}@example.com`, issuer: ISSUER, subject: `sub-${i}` }),
          )
          expect(new Set(users.map((user) => user.id)).size).toBe(20)
        }),
      ))

    it("updates an e-mail address, unless another account holds it", () =>
      run((accounts) =>
        Effect.gen(function* () {
          const ada = yield* accounts.create({ email: "ada@example.com", issuer: ISSUER, subject: "sub-1" })
          const bob = yield* accounts.create({ email: "bob@example.com", issuer: ISSUER, subject: "sub-2" })
          const moved = yield* accounts.updateEmail(ada.id, "ada@new.example.com")
          expect(moved).toEqual({ ...ada, email: "ada@new.example.com" })
          expect(yield* accounts.findByEmail("ada@example.com")).toBeUndefined()
          expect(yield* accounts.findByEmail("ADA@new.example.com")).toEqual(moved)
          // A change of case of one's own address is not a conflict.
          expect((yield* accounts.updateEmail(ada.id, "Ada@New.Example.com")).email).toBe("Ada@New.Example.com")
          const taken = yield* Effect.flip(accounts.updateEmail(ada.id, "BOB@example.com"))
          expect(taken._tag).toBe("EmailTaken")
          expect((yield* accounts.findById(ada.id))?.email).toBe("Ada@New.Example.com")
          expect(yield* accounts.findByEmail("bob@example.com")).toEqual(bob)
          const missing = yield* Effect.flip(accounts.updateEmail("no-such-id", "x@example.com"))
          expect(missing).toMatchObject({ _tag: "AccountNotFound", message: 'No account with id "no-such-id"' })
        }),
      ))

    it("links another identity to an account, idempotently", () =>
      run((accounts) =>
        Effect.gen(function* () {
          const ada = yield* accounts.create({ email: "ada@example.com", issuer: ISSUER, subject: "sub-1" })
          yield* accounts.link(ada.id, OTHER_ISSUER, "ada-elsewhere")
          expect(yield* accounts.findByIdentity(OTHER_ISSUER, "ada-elsewhere")).toEqual(ada)
          yield* accounts.link(ada.id, OTHER_ISSUER, "ada-elsewhere")
          expect((yield* accounts.list())[0]?.identities).toHaveLength(2)
        }),
      ))

    it("refuses to link an identity of another account, or to an unknown account", () =>
      run((accounts) =>
        Effect.gen(function* () {
          const ada = yield* accounts.create({ email: "ada@example.com", issuer: ISSUER, subject: "sub-1" })
          const bob = yield* accounts.create({ email: "bob@example.com", issuer: ISSUER, subject: "sub-2" })
          const stolen = yield* Effect.flip(accounts.link(ada.id, ISSUER, "sub-2"))
          expect(stolen).toMatchObject({
            _tag: "IdentityTaken",
            message: "This identity signs in to another account; unlink it first",
          })
          expect(yield* accounts.findByIdentity(ISSUER, "sub-2")).toEqual(bob)
          const nobody = yield* Effect.flip(accounts.link("no-such-id", ISSUER, "sub-3"))
          expect(nobody._tag).toBe("AccountNotFound")
          expect(yield* accounts.findByIdentity(ISSUER, "sub-3")).toBeUndefined()
        }),
      ))

    it("unlinks an identity and keeps the account", () =>
      run((accounts) =>
        Effect.gen(function* () {
          const ada = yield* accounts.create({ email: "ada@example.com", issuer: ISSUER, subject: "sub-1" })
          yield* accounts.link(ada.id, OTHER_ISSUER, "ada-elsewhere")
          yield* accounts.unlink(ISSUER, "sub-1")
          expect(yield* accounts.findByIdentity(ISSUER, "sub-1")).toBeUndefined()
          expect(yield* accounts.findByIdentity(OTHER_ISSUER, "ada-elsewhere")).toEqual(ada)
          expect(yield* accounts.findById(ada.id)).toEqual(ada)
          const again = yield* Effect.flip(accounts.unlink(ISSUER, "sub-1"))
          expect(again).toMatchObject({ _tag: "IdentityNotFound", message: "No account signs in with this identity" })
          // Once unlinked, the identity can be linked to another account.
          const bob = yield* accounts.create({ email: "bob@example.com", issuer: ISSUER, subject: "sub-2" })
          yield* accounts.link(bob.id, ISSUER, "sub-1")
          expect(yield* accounts.findByIdentity(ISSUER, "sub-1")).toEqual(bob)
        }),
      ))

    it("lists every account, oldest first, each with its identities oldest first", () =>
      run((accounts, clock) =>
        Effect.gen(function* () {
          expect(yield* accounts.list()).toEqual([])
          const ada = yield* accounts.create({ email: "ada@example.com", issuer: ISSUER, subject: "sub-1" })
          clock.advance(1_000)
          const bob = yield* accounts.create({ email: "bob@example.com", issuer: OTHER_ISSUER, subject: "sub-2" })
          clock.advance(1_000)
          yield* accounts.link(ada.id, OTHER_ISSUER, "a-second")
          const linkedAt = START + 2_000
          expect(yield* accounts.list()).toEqual([
            {
              ...ada,
              identities: [
                { issuer: ISSUER, subject: "sub-1", createdAt: ada.createdAt },
                { issuer: OTHER_ISSUER, subject: "a-second", createdAt: linkedAt },
              ],
            },
            { ...bob, identities: [{ issuer: OTHER_ISSUER, subject: "sub-2", createdAt: bob.createdAt }] },
          ])
        }),
      ))
  })

  describe(`Sign-in over Accounts: ${name}`, () => {
    // A sign-in that changes an address renews the API-key checks' generation: it needs a cache beside the store.
    const provide = (accounts: Accounts.Accounts["Service"]) =>
      Effect.provide(Layer.mergeAll(Layer.succeed(Accounts.Accounts, accounts), MemoryCache.layer, Random.layer))

    it("creates the account at the first sign-in and reuses it afterwards", () =>
      run((accounts) =>
        Effect.gen(function* () {
          const first = yield* signIn({ issuer: ISSUER, subject: "sub-1", email: "ada@example.com" }).pipe(
            provide(accounts),
          )
          const again = yield* signIn({ issuer: ISSUER, subject: "sub-1", email: "ada@example.com" }).pipe(
            provide(accounts),
          )
          expect(again).toEqual(first)
          expect(yield* accounts.list()).toHaveLength(1)
        }),
      ))

    it("takes the provider's new e-mail address, unless another account holds it", () =>
      run((accounts) =>
        Effect.gen(function* () {
          const ada = yield* signIn({ issuer: ISSUER, subject: "sub-1", email: "ada@example.com" }).pipe(
            provide(accounts),
          )
          yield* signIn({ issuer: ISSUER, subject: "sub-2", email: "bob@example.com" }).pipe(provide(accounts))
          const moved = yield* signIn({ issuer: ISSUER, subject: "sub-1", email: "ada@new.example.com" }).pipe(
            provide(accounts),
          )
          expect(moved).toEqual({ ...ada, email: "ada@new.example.com" })
          const kept = yield* signIn({ issuer: ISSUER, subject: "sub-1", email: "bob@example.com" }).pipe(
            provide(accounts),
          )
          expect(kept).toEqual(moved)
        }),
      ))

    it("refuses an unknown identity whose e-mail an older account holds, until an operator links it", () =>
      run((accounts) =>
        Effect.gen(function* () {
          const ada = yield* signIn({ issuer: ISSUER, subject: "sub-1", email: "ada@example.com" }).pipe(
            provide(accounts),
          )
          const second = { issuer: OTHER_ISSUER, subject: "other-ada", email: "ADA@example.com" }
          const refused = yield* Effect.flip(signIn(second).pipe(provide(accounts)))
          expect(refused).toBeInstanceOf(AccountLinkRequired)
          expect(refused.message).toContain("coffer accounts link")
          expect(yield* accounts.findByIdentity(OTHER_ISSUER, "other-ada")).toBeUndefined()
          expect(yield* accounts.list()).toHaveLength(1)
          yield* accounts.link(ada.id, OTHER_ISSUER, "other-ada")
          const linked = yield* signIn(second).pipe(provide(accounts))
          expect(linked.id).toBe(ada.id)
        }),
      ))

    it("signs racing first sign-ins of one identity in to one account", () =>
      run((accounts) =>
        Effect.gen(function* () {
          const users = yield* Effect.all(
            Array.from({ length: 5 }, () =>
              signIn({ issuer: ISSUER, subject: "sub-1", email: "ada@example.com" }).pipe(provide(accounts)),
            ),
            { concurrency: "unbounded" },
          )
          expect(new Set(users.map((user) => user.id)).size).toBe(1)
          expect(yield* accounts.list()).toHaveLength(1)
        }),
      ))

    it("development login: the normalised address is the identity, whatever its case", () =>
      run((accounts) =>
        Effect.gen(function* () {
          const first = yield* developmentSignIn("Ada@Example.com").pipe(provide(accounts))
          const second = yield* developmentSignIn("ada@example.com").pipe(provide(accounts))
          expect(second.id).toBe(first.id)
          expect((yield* accounts.findByIdentity(DEVELOPMENT_ISSUER, "ada@example.com"))?.id).toBe(first.id)
        }),
      ))
  })
}
