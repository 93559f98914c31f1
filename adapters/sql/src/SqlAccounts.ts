/**
 * The Accounts port (secrets service) on SQL: `secrets_users` and `secrets_identities` (migration
 * `0002_sessions`). The port's rules are kept by the schema where a race could break them: the identity is
 * the primary key of `secrets_identities`, and `email_key` is unique, so two first sign-ins racing cannot
 * both create an account; the loser's `UniqueViolation` becomes the port's `Conflict`. A user and its first
 * identity are written in one transaction.
 *
 * A failed statement that is neither an outage nor a constraint the port names is a bug in this file, so it
 * becomes a defect (500); an unreachable database stays `StoreUnavailable` (503).
 */
import { Clock, Conflict, NotFound, Random, type StoreUnavailable } from "@coffer/kernel"
import { Accounts } from "@coffer/secrets"
import { Effect, Layer } from "effect"
import type { Kysely } from "kysely"
import { SqlDatabase } from "./SqlDatabase.js"
import type { SqlError } from "./SqlError.js"
import type { Tables } from "./Tables.js"
import type { SecretsUserRow } from "./tables/sessions.js"

type Violation = "UniqueViolation" | "ForeignKeyViolation"

const toUser = (row: Pick<SecretsUserRow, "id" | "email" | "created_at">): Accounts.User => ({
  id: row.id,
  email: row.email,
  createdAt: row.created_at,
})

export const make = Effect.gen(function* () {
  const database = yield* SqlDatabase
  const random = yield* Random.Random
  const clock = yield* Clock.Clock
  const now = Effect.map(clock.now, (ms) => new Date(ms).toISOString())

  /** Runs a statement; the named constraint violations come back as values, any other SqlError is a defect. */
  const attempt = <A, V extends Violation = never>(
    run: (db: Kysely<Tables>) => Promise<A>,
    ...expected: ReadonlyArray<V>
  ): Effect.Effect<A | V, StoreUnavailable> =>
    database
      .query(run)
      .pipe(
        Effect.catchTag("SqlError", (error: SqlError) =>
          (expected as ReadonlyArray<string>).includes(error.reason._tag)
            ? Effect.succeed(error.reason._tag as V)
            : Effect.die(error),
        ),
      )
  const query = <A>(run: (db: Kysely<Tables>) => Promise<A>) => attempt(run)

  const findById = (id: string) =>
    query((db) => db.selectFrom("secrets_users").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
      Effect.map((row) => (row === undefined ? undefined : toUser(row))),
    )

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
        new Conflict({ message: owner === undefined ? Accounts.messages.emailTaken : Accounts.messages.identityTaken }),
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
      const outcome = yield* database
        .withTransaction(
          Effect.gen(function* () {
            yield* database.query((db) => db.insertInto("secrets_users").values(user).execute())
            yield* database.query((db) =>
              db
                .insertInto("secrets_identities")
                .values({ issuer: input.issuer, subject: input.subject, user_id: id, created_at: createdAt })
                .execute(),
            )
          }),
        )
        .pipe(
          Effect.as("created" as const),
          Effect.catchTag("SqlError", (error) =>
            error.reason._tag === "UniqueViolation" ? Effect.succeed("taken" as const) : Effect.die(error),
          ),
        )
      if (outcome === "taken") return yield* createConflict(input)
      return toUser(user)
    }),
    updateEmail: Effect.fnUntraced(function* (id, email) {
      const updated = yield* attempt(
        (db) =>
          db
            .updateTable("secrets_users")
            .set({ email, email_key: Accounts.emailKey(email) })
            .where("id", "=", id)
            .returning(["id", "email", "created_at"])
            .executeTakeFirst(),
        "UniqueViolation",
      )
      if (updated === "UniqueViolation") return yield* new Conflict({ message: Accounts.messages.emailTaken })
      if (updated === undefined) return yield* new NotFound({ message: Accounts.messages.noUser(id) })
      return toUser(updated)
    }),
    link: Effect.fnUntraced(function* (userId, issuer, subject) {
      const createdAt = yield* now
      // Checked before and, for a racing caller, after the insert: the same owner is success, another a conflict.
      const settle = Effect.fnUntraced(function* (owner: string | undefined) {
        if (owner === userId) return true
        if (owner !== undefined) return yield* new Conflict({ message: Accounts.messages.identityOfOther })
        return false
      })
      if (yield* settle(yield* identityOwner(issuer, subject))) return
      const inserted = yield* attempt(
        (db) =>
          db
            .insertInto("secrets_identities")
            .values({ issuer, subject, user_id: userId, created_at: createdAt })
            .execute(),
        "UniqueViolation",
        "ForeignKeyViolation",
      )
      if (inserted === "ForeignKeyViolation") return yield* new NotFound({ message: Accounts.messages.noUser(userId) })
      if (inserted === "UniqueViolation") yield* settle(yield* identityOwner(issuer, subject))
    }),
    unlink: Effect.fnUntraced(function* (issuer, subject) {
      const result = yield* query((db) =>
        db
          .deleteFrom("secrets_identities")
          .where("issuer", "=", issuer)
          .where("subject", "=", subject)
          .executeTakeFirst(),
      )
      if (result.numDeletedRows === 0n) return yield* new NotFound({ message: Accounts.messages.noIdentity })
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
            createdAt: identity.created_at,
          })),
        }))
      }),
  })
})

/** The Accounts port on the `SqlDatabase` in context; the database must be migrated. */
export const layer: Layer.Layer<Accounts.Accounts, never, SqlDatabase | Random.Random | Clock.Clock> = Layer.effect(
  Accounts.Accounts,
  make,
)
