/**
 * The Accounts port (secrets service) in process memory: for tests, embedding and single-process development.
 * Every call runs synchronously, so each one is atomic without locks.
 */
import { Clock, Random } from "@coffer/kernel"
import { Accounts } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

interface StoredIdentity extends Accounts.Identity {
  readonly userId: string
}

const identityKey = (issuer: string, subject: string) => JSON.stringify([issuer, subject])

export const make: Effect.Effect<Accounts.Accounts["Service"], never, Random.Random | Clock.Clock> = Effect.gen(
  function* () {
    const random = yield* Random.Random
    const clock = yield* Clock.Clock
    // Insertion order is creation order, which `list` promises.
    const users = new Map<string, Accounts.User>()
    const identities = new Map<string, StoredIdentity>()
    const holderOf = (email: string) => {
      const key = Accounts.emailKey(email)
      for (const user of users.values()) if (Accounts.emailKey(user.email) === key) return user
      return undefined
    }
    const now = clock.now

    return Accounts.Accounts.of({
      findByIdentity: (issuer, subject) =>
        Effect.sync(() => {
          const identity = identities.get(identityKey(issuer, subject))
          return identity === undefined ? undefined : users.get(identity.userId)
        }),
      findById: (id) => Effect.sync(() => users.get(id)),
      findByEmail: (email) => Effect.sync(() => holderOf(email)),
      create: Effect.fnUntraced(function* (input) {
        const id = yield* random.id
        const createdAt = yield* now
        if (identities.has(identityKey(input.issuer, input.subject))) {
          return yield* new Accounts.IdentityTaken({ ofAnotherAccount: false })
        }
        if (holderOf(input.email) !== undefined) return yield* new Accounts.EmailTaken()
        const user: Accounts.User = { id, email: input.email, createdAt }
        users.set(id, user)
        identities.set(identityKey(input.issuer, input.subject), {
          issuer: input.issuer,
          subject: input.subject,
          userId: id,
          createdAt,
        })
        return user
      }),
      updateEmail: Effect.fnUntraced(function* (id, email) {
        const user = users.get(id)
        if (user === undefined) return yield* new Accounts.AccountNotFound({ userId: id })
        const holder = holderOf(email)
        if (holder !== undefined && holder.id !== id) {
          return yield* new Accounts.EmailTaken()
        }
        const updated = { ...user, email }
        users.set(id, updated)
        return updated
      }),
      link: Effect.fnUntraced(function* (userId, issuer, subject) {
        const createdAt = yield* now
        if (!users.has(userId)) return yield* new Accounts.AccountNotFound({ userId })
        const existing = identities.get(identityKey(issuer, subject))
        if (existing !== undefined) {
          if (existing.userId === userId) return
          return yield* new Accounts.IdentityTaken({ ofAnotherAccount: true })
        }
        identities.set(identityKey(issuer, subject), { issuer, subject, userId, createdAt })
      }),
      unlink: Effect.fnUntraced(function* (issuer, subject) {
        if (!identities.delete(identityKey(issuer, subject))) {
          return yield* new Accounts.IdentityNotFound()
        }
      }),
      list: () =>
        Effect.sync(() =>
          Array.from(users.values(), (user) => ({
            ...user,
            identities: Array.from(identities.values())
              .filter((identity) => identity.userId === user.id)
              .map(({ issuer, subject, createdAt }) => ({ issuer, subject, createdAt })),
          })),
        ),
    })
  },
)

/** The Accounts port on a fresh in-memory store; needs Random (ids) and Clock (creation times). */
export const layer: Layer.Layer<Accounts.Accounts, never, Random.Random | Clock.Clock> = Layer.effect(
  Accounts.Accounts,
  make,
)
