/**
 * Brings the database to the newest schema with Kysely's Migrator and the migrations in `./migrations`.
 *
 * Safe when several instances start at once against one Postgres: the Migrator creates its bookkeeping tables
 * tolerating a concurrent creator, then takes a session advisory lock (`pg_advisory_lock`) on a dedicated
 * connection and runs all pending migrations in one transaction; a second instance waits for the lock, then
 * finds nothing pending. On SQLite one process owns the file's single connection for the whole run.
 */

import type { StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type Kysely, type Migration, type MigrationResultSet, Migrator, sql } from "kysely"
import { latestMigration, migrations } from "./migrations/index.js"
import { type Dialect, SqlDatabase } from "./SqlDatabase.js"
import * as SqlError from "./SqlError.js"

// Coffer's own names, so the bookkeeping tables follow the table prefix convention.
const migrationTableName = "coffer_migration"
const migrationLockTableName = "coffer_migration_lock"

/** Kysely runs SQLite migrations outside any transaction; give each one its own, so none half-applies. */
const transactional = (migration: Migration): Migration => ({
  up: (db) => db.transaction().execute((trx) => migration.up(trx)),
  ...(migration.down ? { down: (db) => db.transaction().execute((trx) => migration.down!(trx)) } : {}),
})

const provider = (dialect: Dialect) => ({
  getMigrations: async () =>
    dialect === "sqlite"
      ? Object.fromEntries(Object.entries(migrations).map(([name, migration]) => [name, transactional(migration)]))
      : migrations,
})

/**
 * A migration may take long, and a second instance waits on the advisory lock for the first one's whole run: so
 * the run goes where the limits on a request's statements do not apply (`SqlDatabase.unbounded`); on Postgres, on
 * one connection.
 */
const migrateToLatest = (database: SqlDatabase["Service"]): Promise<MigrationResultSet> => {
  // biome-ignore lint/suspicious/noExplicitAny: the Migrator works below the `Tables` type.
  const migrator = (db: Kysely<any>) =>
    new Migrator({ db, provider: provider(database.dialect), migrationTableName, migrationLockTableName })
  return database.unbounded((db) =>
    database.dialect === "sqlite"
      ? migrator(db).migrateToLatest()
      : db.connection().execute((connection) => migrator(connection).migrateToLatest()),
  )
}

/**
 * The database holds migrations this release does not know: a newer release migrated it. Running on it would
 * read and write tables whose meaning this release does not know (a downgrade), so nothing is done.
 */
export class NewerDatabase extends Schema.TaggedError<NewerDatabase>()("NewerDatabase", {
  /** The migrations the database has and this release lacks, in the order they were applied. */
  unknown: Schema.Array(Schema.String),
  message: Schema.String,
}) {}

/**
 * The migrations `database` has applied that this release does not know; none when it has none at all. Read on the
 * database itself rather than through `query`: a database never migrated has no bookkeeping table yet, which is
 * no store error to count.
 */
const unknownApplied = (database: SqlDatabase["Service"]) =>
  Effect.tryPromise(() =>
    // The Migrator's own table, outside `Tables`.
    sql<{ name: string }>`select name from coffer_migration order by timestamp, name`.execute(database.db),
  ).pipe(
    Effect.map((result) => result.rows.map((row) => row.name).filter((name) => !(name in migrations))),
    // Anything worse than a missing table fails the run that follows, with its own error.
    Effect.orElseSucceed((): ReadonlyArray<string> => []),
  )

/**
 * Applies every pending migration and returns the names it applied (empty when the database was current).
 * Run it at start, outside `withTransaction`: migrations need connections of their own.
 */
export const migrate: Effect.Effect<
  ReadonlyArray<string>,
  SqlError.SqlError | StoreUnavailable | NewerDatabase,
  SqlDatabase
> = Effect.gen(function* () {
  const database = yield* SqlDatabase
  const unknown = yield* unknownApplied(database)
  if (unknown.length > 0) {
    return yield* new NewerDatabase({
      unknown,
      message: `the database was migrated by a newer release of Coffer (it has ${unknown.join(", ")}, which this release does not know): run that release or a newer one`,
    })
  }
  const { error, results = [] } = yield* Effect.tryPromise({
    try: () => migrateToLatest(database),
    catch: SqlError.fromCause,
  })
  if (error !== undefined) return yield* Effect.fail(SqlError.fromCause(error))
  const applied = results.filter((result) => result.status === "Success").map((result) => result.migrationName)
  // Recorded after the run, and repaired on the next start if a crash came in between.
  const recorded = yield* database.query((db) =>
    db.selectFrom("coffer_meta").select("value").where("key", "=", "schema_version").executeTakeFirst(),
  )
  if (recorded?.value !== latestMigration) {
    yield* database.query((db) =>
      db
        .insertInto("coffer_meta")
        .values({ key: "schema_version", value: latestMigration })
        .onConflict((conflict) => conflict.column("key").doUpdateSet({ value: latestMigration }))
        .execute(),
    )
  }
  return applied
}).pipe(Effect.withSpan("SqlDatabase.migrate"))
