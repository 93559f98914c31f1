/**
 * Fresh, migrated SQL databases for the store contract suites: SQLite in memory, and Postgres in a database of
 * its own (created for the layer's lifetime, dropped when it closes), so that every test starts empty and
 * leaves nothing behind. Stores written once against Kysely run their suite on both through this list.
 */

import { Postgres } from "@coffer/adapter-postgres"
import { migrate, SqlDatabase } from "@coffer/adapter-sql"
import { Sqlite } from "@coffer/adapter-sqlite"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { postgresUrl, runId } from "./services.js"

const admin = async <A>(use: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: postgresUrl })
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}

/** A Postgres database of this run's own for the life of the scope. */
const scopedPostgresDatabase = Effect.acquireRelease(
  Effect.promise(async () => {
    const name = runId("pg")
    await admin((client) => client.query(`create database "${name}"`))
    const url = new URL(postgresUrl)
    url.pathname = `/${name}`
    return { name, url: url.toString() }
  }),
  ({ name }) => Effect.promise(() => admin((client) => client.query(`drop database if exists "${name}" with (force)`))),
)

const migrated = <E>(layer: Layer.Layer<SqlDatabase.SqlDatabase, E>) =>
  Layer.effectDiscard(Effect.orDie(migrate)).pipe(Layer.provideMerge(layer))

/** A migrated SQLite database in memory, new at every build. */
export const freshSqlite = (): Layer.Layer<SqlDatabase.SqlDatabase, unknown> =>
  migrated(Sqlite.layer({ filename: ":memory:" }))

/** A migrated Postgres database of its own, new at every build and dropped when the layer closes. */
export const freshPostgres = (): Layer.Layer<SqlDatabase.SqlDatabase, unknown> =>
  migrated(
    Layer.effect(
      SqlDatabase.SqlDatabase,
      Effect.flatMap(scopedPostgresDatabase, ({ url }) => Postgres.make({ url: Redacted.make(url) })),
    ),
  )
