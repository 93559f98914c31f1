/**
 * The Accounts port (secrets service) on SQL: `secrets_users` and `secrets_identities` (migration
 * `0002_sessions`). The port's rules are kept by the schema where a race could break them: the identity is
 * the primary key of `secrets_identities`, and `email_key` is unique, so two first sign-ins racing cannot
 * both create an account; the loser's `UniqueViolation` becomes the port's `IdentityTaken` or `EmailTaken`. A user and its first
 * identity are written in one transaction.
 *
 * A failed statement that is neither an outage nor a constraint the port names is a bug in this file, so it
 * becomes a defect (500); an unreachable database stays `StoreUnavailable` (503).
 */
import { Clock, fromIso, Random, toIso } from "@coffer/kernel"
import { Accounts } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { prepare } from "./prepared.js"
import { SqlDatabase } from "./SqlDatabase.js"
import * as SqlStore from "./SqlStore.js"
import { toUser } from "./secrets/rows.js"
import type { SecretsUserRow } from "./tables/sessions.js"
import { traced } from "./traced.js"

/**
 * Accounts by id, built once. An API key's holder no longer comes this way: it comes with the key
 * (`secrets/apiKeys.ts`, SecretStore rule 11).
 */
const userById = prepare<{ id: string }>()((db, param) =>
  db.selectFrom("secrets_users").selectAll().where("id", "=", param("id")),
)

export const make: Effect.Effect<Accounts.Accounts["Service"], never, SqlDatabase | Random.Random | Clock.Clock> =
  Effect.gen(function* () {
    const database = yield* SqlDatabase
    const random = yield* Random.Random
    const clock = yield* Clock.Clock
    const now = Effect.map(clock.now, toIso)

    const { statement, query, first, attemptTransaction } = SqlStore.make(database)

    const findById = (id: string) =>
      SqlStore.settle(first(userById, { id })).pipe(Effect.map((row) => (row === undefined ? undefined : toUser(row))))

    const identityOwner = (issuer: string, subject: string) =>
      query((db) =>
        db
          .selectFrom("secrets_identities")
          .select("user_id")
          .where("issuer", "=", issuer)
          .where("subject", "=", subject)
          .executeTakeFirst(),
      ).pipe(Effect.map((row) => row?.user_id))

    const findByEmail = (email: string) =>
      query((db) =>
        db.selectFrom("secrets_users").selectAll().where("email_key", "=", Accounts.emailKey(email)).executeTakeFirst(),
      ).pipe(Effect.map((row) => (row === undefined ? undefined : toUser(row))))

    /** Which of the two unique keys a new account would take is held already; the message says which. */
    const createConflict = (input: Accounts.NewAccount) =>
      Effect.flatMap(identityOwner(input.issuer, input.subject), (owner) =>
        Effect.fail(
          owner === undefined ? new Accounts.EmailTaken() : new Accounts.IdentityTaken({ ofAnotherAccount: false }),
        ),
      )

    return Accounts.Accounts.of({
      findByIdentity: (issuer, subject) =>
        query((db) =>
          db
            .selectFrom("secrets_identities")
            .innerJoin("secrets_users", "secrets_users.id", "secrets_identities.user_id")
            .select(["secrets_users.id", "secrets_users.email", "secrets_users.created_at"])
            .where("secrets_identities.issuer", "=", issuer)
            .where("secrets_identities.subject", "=", subject)
            .executeTakeFirst(),
        ).pipe(Effect.map((row) => (row === undefined ? undefined : toUser(row)))),
      findById,
      findByEmail,
      create: Effect.fnUntraced(function* (input) {
        const id = yield* random.id
        const createdAt = yield* now
        const user: SecretsUserRow = {
          id,
          email: input.email,
          email_key: Accounts.emailKey(input.email),
          created_at: createdAt,
        }
        yield* attemptTransaction(
          Effect.gen(function* () {
            yield* statement((db) => db.insertInto("secrets_users").values(user).execute())
            yield* statement((db) =>
              db
                .insertInto("secrets_identities")
                .values({ issuer: input.issuer, subject: input.subject, user_id: id, created_at: createdAt })
                .execute(),
            )
          }),
        ).pipe(
          // After the rollback, so that the answer reads what the winner of the race committed.
          SqlStore.catchReason("UniqueViolation", () => createConflict(input)),
          SqlStore.settle,
        )
        return toUser(user)
      }),
      updateEmail: Effect.fnUntraced(function* (id, email) {
        const updated = yield* statement((db) =>
          db
            .updateTable("secrets_users")
            .set({ email, email_key: Accounts.emailKey(email) })
            .where("id", "=", id)
            .returning(["id", "email", "created_at"])
            .executeTakeFirst(),
        ).pipe(
          SqlStore.failOn("UniqueViolation", () => new Accounts.EmailTaken()),
          SqlStore.settle,
        )
        if (updated === undefined) return yield* new Accounts.AccountNotFound({ userId: id })
        return toUser(updated)
      }),
      link: Effect.fnUntraced(function* (userId, issuer, subject) {
        const createdAt = yield* now
        // Checked before and, for a racing caller, after the insert: the same owner is success, another a conflict.
        const answerFor = Effect.fnUntraced(function* (owner: string | undefined) {
          if (owner === userId) return true
          if (owner !== undefined) return yield* new Accounts.IdentityTaken({ ofAnotherAccount: true })
          return false
        })
        if (yield* answerFor(yield* identityOwner(issuer, subject))) return
        yield* statement((db) =>
          db
            .insertInto("secrets_identities")
            .values({ issuer, subject, user_id: userId, created_at: createdAt })
            .execute(),
        ).pipe(
          SqlStore.failOn("ForeignKeyViolation", () => new Accounts.AccountNotFound({ userId })),
          SqlStore.catchReason("UniqueViolation", () => Effect.flatMap(identityOwner(issuer, subject), answerFor)),
          SqlStore.settle,
        )
      }),
      unlink: Effect.fnUntraced(function* (issuer, subject) {
        const result = yield* query((db) =>
          db
            .deleteFrom("secrets_identities")
            .where("issuer", "=", issuer)
            .where("subject", "=", subject)
            .executeTakeFirst(),
        )
        if (result.numDeletedRows === 0n) return yield* new Accounts.IdentityNotFound()
      }),
      list: () =>
        Effect.gen(function* () {
          const [users, identities] = yield* query((db) =>
            Promise.all([
              db.selectFrom("secrets_users").selectAll().orderBy("created_at").orderBy("id").execute(),
              db
                .selectFrom("secrets_identities")
                .selectAll()
                .orderBy("created_at")
                .orderBy("issuer")
                .orderBy("subject")
                .execute(),
            ]),
          )
          const byUser = new Map<string, Array<(typeof identities)[number]>>()
          for (const identity of identities) {
            const list = byUser.get(identity.user_id)
            if (list === undefined) byUser.set(identity.user_id, [identity])
            else list.push(identity)
          }
          return users.map((row) => ({
            ...toUser(row),
            identities: (byUser.get(row.id) ?? []).map((identity) => ({
              issuer: identity.issuer,
              subject: identity.subject,
              createdAt: fromIso(identity.created_at),
            })),
          }))
        }),
    })
  })

/** The Accounts port on the `SqlDatabase` in context; the database must be migrated. */
export const layer: Layer.Layer<Accounts.Accounts, never, SqlDatabase | Random.Random | Clock.Clock> = Layer.effect(
  Accounts.Accounts,
  Effect.map(make, (accounts) => traced("Accounts", accounts)),
)
