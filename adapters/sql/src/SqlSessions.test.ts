/**
 * The SQL session store against the Sessions contract, on SQLite in memory and on Postgres (a database of its
 * own per test), plus the checks only SQL needs: the layer serves the service it is built for, and a lost
 * database is `StoreUnavailable`, never "no session".
 */
import { freshPostgres, freshSqlite, hasPostgres, type SessionsBackend, sessionsSuite } from "@coffer/contract"
import { Clock, Hasher, Random, Sessions } from "@coffer/kernel"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import { SqlDatabase } from "./index.js"
import * as SqlSessions from "./SqlSessions.js"

const backendOn = (database: Layer.Layer<SqlDatabase.SqlDatabase, unknown>) =>
  Effect.gen(function* () {
    const context = yield* Layer.build(database)
    const store = (service: SqlSessions.Service) =>
      Effect.runSync(Effect.provideContext(SqlSessions.makeStore({ service }), context))
    const stores = { schemas: store("schemas"), secrets: store("secrets") }
    const dump = Effect.provideContext(
      Effect.orDie(
        SqlDatabase.query((db) =>
          Promise.all([
            db.selectFrom("schemas_sessions").selectAll().execute(),
            db.selectFrom("secrets_sessions").selectAll().execute(),
          ]),
        ),
      ),
      context,
    ).pipe(Effect.map((tables) => tables.flat()))
    return { store: (service) => stores[service], dump } satisfies SessionsBackend
  })

sessionsSuite("sqlite", () => backendOn(freshSqlite()))
describe.runIf(await hasPostgres())("postgres", () => {
  sessionsSuite("postgres", () => backendOn(freshPostgres()))
})

describe("SqlSessions.layer", () => {
  const platform = Layer.mergeAll(Clock.layer, Random.layer, Hasher.layer)

  it("serves the sessions of the service it is built for", async () => {
    const found = await Effect.runPromise(
      Effect.gen(function* () {
        const database = yield* Layer.build(freshSqlite())
        const sessionsOf = (service: SqlSessions.Service) =>
          Effect.provide(
            Sessions.Sessions,
            SqlSessions.layer({ service }).pipe(Layer.provide([platform, Layer.succeedContext(database)])),
          )
        const schemas = yield* sessionsOf("schemas")
        const secrets = yield* sessionsOf("secrets")
        const { token } = yield* schemas.create({ userId: "dev:a@example.com", email: "a@example.com", groups: ["g"] })
        const rows = yield* Effect.provideContext(
          Effect.orDie(SqlDatabase.query((db) => db.selectFrom("schemas_sessions").select("groups").execute())),
          database,
        )
        return { schemas: yield* schemas.get(token), secrets: yield* secrets.get(token), rows }
      }).pipe(Effect.scoped),
    )
    expect(found.schemas?.email).toBe("a@example.com")
    expect(found.secrets).toBeUndefined()
    expect(found.rows).toEqual([{ groups: '["g"]' }])
  })

  it("fails with StoreUnavailable when the database is gone", async () => {
    const error = await Effect.runPromise(
      Effect.gen(function* () {
        const database = yield* Layer.build(freshSqlite())
        const sessions = yield* Effect.provide(
          Sessions.Sessions,
          SqlSessions.layer({ service: "secrets" }).pipe(Layer.provide([platform, Layer.succeedContext(database)])),
        )
        const { token } = yield* sessions.create({ userId: "u", email: "u@example.com", groups: [] })
        yield* Effect.promise(() => Context.get(database, SqlDatabase.SqlDatabase).db.destroy())
        return yield* Effect.flip(sessions.get(token))
      }).pipe(Effect.scoped),
    )
    expect(error._tag).toBe("StoreUnavailable")
  })
})
