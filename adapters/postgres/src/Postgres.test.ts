/**
 * The Postgres dialect against the SQL foundation contract, then what only a networked, shared database can get
 * wrong: instances migrating one database at once, starting while Postgres is unreachable, failing fast during
 * an outage and healing afterwards, and surviving a connection lost in the middle of a transaction. Every test
 * gets a database of its own (`create database`), dropped afterwards; outages are made with a TCP proxy.
 */
import { createServer } from "node:net"
import { migrate, migrations, SqlDatabase, SqlSchemaStore } from "@coffer/adapter-sql"
import { hasPostgres, migrationSuite, postgresUrl, scopedPostgresDatabase, startTcpProxy } from "@coffer/contract"
import { Readiness, StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import { sql } from "kysely"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { Postgres } from "./index.js"

const admin = async <A>(use: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: postgresUrl })
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}

const urlFor = (database: string, base: { host: string; port: number } | undefined = undefined) => {
  const url = new URL(postgresUrl)
  url.pathname = `/${database}`
  if (base) {
    url.hostname = base.host
    url.port = String(base.port)
  }
  return url.toString()
}

/** A database of this run's own for the life of the scope: its name. */
const scopedDatabase = Effect.map(scopedPostgresDatabase, (database) => database.name)

const freshLayer = (options: Partial<Postgres.Options> = {}) =>
  Layer.effect(
    SqlDatabase.SqlDatabase,
    Effect.flatMap(scopedDatabase, (name) => Postgres.make({ url: Redacted.make(urlFor(name)), ...options })),
  )

/** A port nothing listens on: bound once by us, then released. */
const closedPort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject()))
    })
  })

/** Runs `effect`, expecting StoreUnavailable, and says how long the failure took. */
const timedFailure = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const start = performance.now()
    const error = yield* Effect.flip(effect)
    return { error, ms: performance.now() - start }
  })

/** The brief for an unreachable database: StoreUnavailable within about three seconds. */
const outageBudgetMs = 3_500

const healed = (database: SqlDatabase.Service) =>
  database.ping.pipe(Effect.retry(Schedule.spaced("100 millis")), Effect.timeout("10 seconds"))

const target = new URL(postgresUrl)

describe.runIf(await hasPostgres())("Postgres", () => {
  migrationSuite("postgres", () => freshLayer())

  it("instances started together against one fresh database apply each migration exactly once", async () => {
    const instances = 4
    const outcome = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const url = Redacted.make(urlFor(yield* scopedDatabase))
          const applied = yield* Effect.all(
            Array.from({ length: instances }, () => Effect.provide(migrate, Postgres.layer({ url }))),
            { concurrency: "unbounded" },
          )
          const recorded = yield* Effect.provide(
            SqlDatabase.query((db) =>
              Promise.all([
                db.selectFrom("coffer_meta").select("key").execute(),
                db
                  .withTables<{ coffer_migration: { name: string } }>()
                  .selectFrom("coffer_migration")
                  .select("name")
                  .execute(),
              ]),
            ),
            Postgres.layer({ url }),
          )
          return { applied, recorded }
        }),
      ),
    )
    expect(outcome.applied.flat().sort()).toEqual(Object.keys(migrations).sort())
    expect(outcome.recorded[0].map((row) => row.key).sort()).toEqual(["created_at", "schema_version"])
    expect(outcome.recorded[1].map((row) => row.name).sort()).toEqual(Object.keys(migrations).sort())
  })

  it("bounds statements by statementTimeoutMs, but lets a migration wait out another instance's run", async () => {
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const name = yield* scopedDatabase
          const database = yield* Postgres.make({ url: urlFor(name), statementTimeoutMs: 100 })
          const slow = yield* Effect.flip(database.query((db) => sql`select pg_sleep(0.3)`.execute(db)))
          expect(slow).toMatchObject({ _tag: "SqlError", reason: { _tag: "Timeout" } })
          expect(slow._tag === "SqlError" && slow.retryable).toBe(true)

          // Another instance is migrating: it holds Kysely's migration lock for longer than the timeout.
          const other = new pg.Client({ connectionString: urlFor(name) })
          yield* Effect.acquireRelease(
            Effect.promise(async () => {
              await other.connect()
              await other.query("select pg_advisory_lock(3853314791062309107)")
            }),
            () => Effect.promise(() => other.end()),
          )
          const unlock = setTimeout(() => void other.query("select pg_advisory_unlock_all()"), 400)
          const start = performance.now()
          const applied = yield* Effect.provideService(migrate, SqlDatabase.SqlDatabase, database).pipe(
            Effect.ensuring(Effect.sync(() => clearTimeout(unlock))),
          )
          // It waited for the lock (so the lock is the one Kysely takes) and was not cut off by the timeout.
          expect(performance.now() - start).toBeGreaterThanOrEqual(350)
          expect(applied).toEqual(Object.keys(migrations).sort())
        }),
      ),
    )
  })

  it("builds while nothing listens, fails fast with StoreUnavailable, and never shows the password", async () => {
    const password = "s3cret-in-the-url"
    const url = Redacted.make(`postgres://coffer:${password}@127.0.0.1:${await closedPort()}/coffer`)
    const outcomes = await Effect.runPromise(
      Effect.gen(function* () {
        const database = yield* SqlDatabase.SqlDatabase
        return [
          yield* timedFailure(database.ping),
          yield* timedFailure(database.query((db) => db.selectFrom("coffer_meta").selectAll().execute())),
          yield* timedFailure(migrate),
        ]
      }).pipe(Effect.provide(Postgres.layer({ url }))),
    )
    for (const { error, ms } of outcomes) {
      expect(error).toBeInstanceOf(StoreUnavailable)
      expect(error).toMatchObject({ store: "database" })
      expect(ms).toBeLessThan(outageBudgetMs)
      expect(error.message).not.toContain(password)
      expect(JSON.stringify(error)).not.toContain(password)
    }
  })

  it("fails readiness within a second and a ping within the budget when the server never answers, then heals", async () => {
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    try {
      await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const name = yield* scopedDatabase
            const database = yield* Postgres.make({ url: urlFor(name, proxy) })
            proxy.stall()
            const readiness = yield* timedFailure(
              Effect.flatMap(Readiness.Readiness, (readiness) => readiness.check).pipe(
                Effect.provide(SqlDatabase.layerReadiness),
                Effect.provideService(SqlDatabase.SqlDatabase, database),
              ),
            )
            expect(readiness.error).toBeInstanceOf(StoreUnavailable)
            expect(readiness.ms).toBeLessThan(1_000)
            const outage = yield* timedFailure(database.ping)
            expect(outage.error._tag).toBe("StoreUnavailable")
            expect(outage.ms).toBeLessThan(outageBudgetMs)
            proxy.restore()
            yield* healed(database)
          }),
        ),
      )
    } finally {
      await proxy.close()
    }
  })

  it("gives up any statement on a pooled connection whose link stalls, in a transaction too, then heals", async () => {
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    const meta = (db: SqlDatabase.Service["db"]) => db.selectFrom("coffer_meta").selectAll().execute()
    const one = (db: Parameters<Parameters<SqlDatabase.Service["execute"]>[0]>[0]) =>
      db.selectNoFrom((eb) => eb.lit(1).as("one")).compile()
    try {
      await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const name = yield* scopedDatabase
            const database = yield* Postgres.make({ url: urlFor(name, proxy), queryTimeoutMs: 1_000 })
            yield* migrate.pipe(Effect.provideService(SqlDatabase.SqlDatabase, database))
            // Connections already open in the pool: the pool's wait for a connection does not apply.
            yield* Effect.all([database.query(meta), database.query(meta)], { concurrency: 2 })
            proxy.stall()
            for (const stalled of [
              // A hot path's prepared statement, any other statement, and one in a transaction.
              yield* timedFailure(database.execute(one, "one")),
              yield* timedFailure(database.query(meta)),
              yield* timedFailure(database.withTransaction(database.query(meta))),
            ]) {
              expect(stalled.error).toBeInstanceOf(StoreUnavailable)
              expect(stalled.ms).toBeLessThan(outageBudgetMs)
            }
            proxy.restore()
            yield* healed(database)
            expect((yield* database.query(meta)).length).toBeGreaterThan(0)
            expect((yield* database.execute(one, "one")).rows).toEqual([{ one: 1 }])
          }),
        ),
      )
    } finally {
      await proxy.close()
    }
  })

  it("ends its pool within seconds when a statement is stuck on a stalled link, not after the query timeout", async () => {
    // A shutdown disposes the pool after its listeners close: it waited for the stuck statement (35 s by default).
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    const scope = Effect.runSync(Scope.make())
    try {
      const database = await Effect.runPromise(
        Scope.provide(scope)(Postgres.make({ url: urlFor(target.pathname.slice(1) || "postgres", proxy) })),
      )
      await Effect.runPromise(database.ping)
      proxy.stall()
      void Effect.runPromise(
        Effect.exit(database.query((db) => db.selectNoFrom((eb) => eb.lit(1).as("one")).execute())),
      )
      await new Promise((resolve) => setTimeout(resolve, 100))
      const started = performance.now()
      await Effect.runPromise(Scope.close(scope, Exit.void))
      expect(performance.now() - started).toBeLessThan(outageBudgetMs)
    } finally {
      await proxy.close()
    }
  })

  it("runs a migration-length statement unbounded, where a request's statement would be given up", async () => {
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const name = yield* scopedDatabase
          const database = yield* Postgres.make({ url: urlFor(name), queryTimeoutMs: 500 })
          const nap = (db: SqlDatabase.Service["db"]) => sql`select pg_sleep(1)`.execute(db)
          const bounded = yield* timedFailure(database.query(nap))
          expect(bounded.error).toBeInstanceOf(StoreUnavailable)
          yield* Effect.promise(() => database.unbounded(nap))
        }),
      ),
    )
  })

  it("survives losing its connections (idle, in the pool) and heals without a rebuild", async () => {
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    const logs: Array<string> = []
    const capture = Logger.layer([Logger.make((options) => void logs.push(String(options.message)))])
    try {
      await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const name = yield* scopedDatabase
            const database = yield* Postgres.make({ url: urlFor(name, proxy) })
            // Several idle connections in the pool, each of which will fail while nobody uses it.
            yield* Effect.all([database.ping, database.ping, database.ping], { concurrency: "unbounded" })
            proxy.cut()
            const outage = yield* timedFailure(database.ping)
            expect(outage.error._tag).toBe("StoreUnavailable")
            expect(outage.ms).toBeLessThan(outageBudgetMs)
            proxy.restore()
            yield* healed(database)
          }).pipe(Effect.provide(capture)),
        ),
      )
    } finally {
      await proxy.close()
    }
    expect(logs.some((line) => line.includes("idle connection failed"))).toBe(true)
  })

  it("fails a transaction whose connection is lost midway with StoreUnavailable, keeps nothing, and carries on", async () => {
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        yield* migrate
        const database = yield* SqlDatabase.SqlDatabase
        const current = yield* database.query((db) =>
          db.selectNoFrom((eb) => eb.fn<string>("current_database").as("name")).executeTakeFirstOrThrow(),
        )
        const insert = (key: string) =>
          database.query((db) => db.insertInto("coffer_meta").values({ key, value: "v" }).execute())
        const error = yield* Effect.flip(
          database.withTransaction(
            Effect.gen(function* () {
              yield* insert("t:before")
              // The server ends every session of this database while ours sits idle inside the transaction.
              yield* Effect.promise(() =>
                admin((client) =>
                  client.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1", [
                    current.name,
                  ]),
                ),
              )
              yield* Effect.sleep("200 millis")
              yield* insert("t:after")
            }),
          ),
        )
        yield* healed(database)
        const kept = yield* database.query((db) =>
          db.selectFrom("coffer_meta").select("key").where("key", "like", "t:%").execute(),
        )
        return { error, kept }
      }).pipe(Effect.provide(freshLayer())),
    )
    expect(outcome.error._tag).toBe("StoreUnavailable")
    expect(outcome.kept).toEqual([])
  })

  it("runs a named statement prepared once per connection, classifies its failures, and joins transactions", async () => {
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        yield* migrate
        const database = yield* SqlDatabase.SqlDatabase
        const insert = (key: string) =>
          database.execute(
            (db) => db.insertInto("coffer_meta").values({ key, value: "v" }).compile(),
            "coffer_test_insert_meta",
          )
        const first = yield* insert("named:a")
        yield* insert("named:b")
        // One connection (max 1): the server holds the statement prepared under its name on it.
        const prepared = yield* database.query((db) =>
          sql<{ name: string }>`select name from pg_prepared_statements where name = 'coffer_test_insert_meta'`.execute(
            db,
          ),
        )
        const duplicate = yield* Effect.flip(insert("named:a"))
        // Inside a transaction the statement runs on the transaction's connection, and is rolled back with it.
        // (With the pool's one connection held by the transaction, a statement sent to the pool would time out.)
        const undone = yield* Effect.flip(
          database.withTransaction(Effect.andThen(insert("named:c"), Effect.fail("undo" as const))),
        )
        const kept = yield* database.query((db) =>
          db.selectFrom("coffer_meta").select("key").where("key", "like", "named:%").orderBy("key").execute(),
        )
        return {
          affected: first.numAffectedRows,
          prepared: prepared.rows.length,
          duplicate: duplicate._tag === "SqlError" ? duplicate.reason._tag : duplicate._tag,
          undone,
          kept: kept.map((row) => row.key),
        }
      }).pipe(Effect.provide(freshLayer({ max: 1 }))),
    )
    expect(outcome).toEqual({
      affected: 1n,
      prepared: 1,
      duplicate: "UniqueViolation",
      undone: "undo",
      kept: ["named:a", "named:b"],
    })
  })
  it("queues schema writes in process, so writes waiting for the write lock hold no pooled connection", async () => {
    // A burst of schema saves: each writing transaction takes the write lock (an advisory lock) and holds it for a
    // while (a large cascade). Waiting for that lock on a pooled connection starved the pool, and writes (and every
    // other request of the process) answered 503 "database unavailable" with the database perfectly healthy.
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        yield* migrate
        const database = yield* SqlDatabase.SqlDatabase
        const store = yield* SqlSchemaStore.make
        const write = store.transaction(database.query((db) => sql`select pg_sleep(0.12)`.execute(db)))
        const read = Effect.andThen(
          Effect.sleep("150 millis"),
          database.query((db) => sql`select 1`.execute(db)),
        )
        const [writes, reads] = yield* Effect.all(
          [
            Effect.all(
              Array.from({ length: 8 }, () => Effect.exit(write)),
              { concurrency: "unbounded" },
            ),
            Effect.exit(read),
          ],
          { concurrency: "unbounded" },
        )
        return { failedWrites: writes.filter(Exit.isFailure).length, readFailed: Exit.isFailure(reads) }
      }).pipe(Effect.provide(freshLayer({ max: 2, connectionTimeoutMs: 300 }))),
    )
    expect(outcome).toEqual({ failedWrites: 0, readFailed: false })
  })
})
