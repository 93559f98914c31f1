/**
 * The SQL Accounts against the Accounts contract, on SQLite in memory and on Postgres (a database of its own
 * per test), plus what only SQL can get wrong: deleting a user takes its identities with it (the foreign key
 * later migrations rely on), and a lost database is `StoreUnavailable`.
 */
import { accountsSuite, freshPostgres, freshSqlite, hasPostgres } from "@coffer/contract"
import { Clock, Random } from "@coffer/kernel"
import { Accounts } from "@coffer/secrets"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import { SqlAccounts, SqlDatabase } from "./index.js"

accountsSuite("sqlite", () => SqlAccounts.layer.pipe(Layer.provide(freshSqlite())))
describe.runIf(await hasPostgres())("postgres", () => {
  accountsSuite("postgres", () => SqlAccounts.layer.pipe(Layer.provide(freshPostgres())))
})

const withAccounts = <A, E>(
  test: (accounts: Accounts.Accounts["Service"], database: SqlDatabase.Service) => Effect.Effect<A, E>,
) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const context = yield* Layer.build(freshSqlite())
      const accounts = yield* Effect.provide(
        Accounts.Accounts,
        SqlAccounts.layer.pipe(Layer.provide([Random.layer, Clock.layer, Layer.succeedContext(context)])),
      )
      return yield* test(accounts, Context.get(context, SqlDatabase.SqlDatabase))
    }).pipe(Effect.scoped),
  )

describe("SqlAccounts", () => {
  it("removes a user's identities with the user", () =>
    withAccounts((accounts, database) =>
      Effect.gen(function* () {
        const ada = yield* accounts.create({ email: "ada@example.com", issuer: "https://id.example.com", subject: "1" })
        yield* accounts.link(ada.id, "https://other.example.com", "2")
        yield* Effect.orDie(database.query((db) => db.deleteFrom("secrets_users").where("id", "=", ada.id).execute()))
        const left = yield* Effect.orDie(
          database.query((db) => db.selectFrom("secrets_identities").selectAll().execute()),
        )
        expect(left).toEqual([])
        expect(yield* accounts.findByIdentity("https://id.example.com", "1")).toBeUndefined()
      }),
    ))

  it("fails with StoreUnavailable when the database is gone", () =>
    withAccounts((accounts, database) =>
      Effect.gen(function* () {
        yield* Effect.promise(() => database.db.destroy())
        const errors = [
          yield* Effect.flip(accounts.findByIdentity("https://id.example.com", "1")),
          yield* Effect.flip(
            accounts.create({ email: "a@example.com", issuer: "https://id.example.com", subject: "1" }),
          ),
          yield* Effect.flip(accounts.list()),
        ]
        for (const error of errors) expect(error._tag).toBe("StoreUnavailable")
      }),
    ))
})
