/**
 * Fresh, migrated SQL databases for the store contract suites: SQLite in memory and in a file, and Postgres in a database of
 * its own (created for the layer's lifetime, dropped when it closes), so that every test starts empty and
 * leaves nothing behind. Stores written once against Kysely run their suite on both through this list.
 */

import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Postgres } from "@coffer/adapter-postgres"
import { migrate, SqlDatabase, SqlStore } from "@coffer/adapter-sql"
import { Sqlite } from "@coffer/adapter-sqlite"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { createPostgresDatabase } from "./postgresDatabase.js"

/** A Postgres database of this run's own for the life of the scope. */
export const scopedPostgresDatabase = Effect.acquireRelease(
  Effect.promise(() => createPostgresDatabase("pg")),
  (database) => Effect.promise(() => database.drop()),
)

const migrated = <E>(layer: Layer.Layer<SqlDatabase.SqlDatabase, E>) =>
  Layer.effectDiscard(Effect.orDie(migrate)).pipe(Layer.provideMerge(layer))

/** A migrated SQLite database in memory, new at every build. */
export const freshSqlite = (): Layer.Layer<SqlDatabase.SqlDatabase, unknown> =>
  migrated(Sqlite.layer({ filename: ":memory:" }))

/**
 * A migrated SQLite database in a file of its own, new at every build and removed when the layer closes: unlike
 * memory, a file gets a second connection for reads, and the lane's transactions of one turn share a commit.
 */
export const freshSqliteFile = (): Layer.Layer<SqlDatabase.SqlDatabase, unknown> =>
  migrated(
    Layer.unwrap(
      Effect.map(
        Effect.acquireRelease(
          Effect.sync(() => mkdtempSync(join(tmpdir(), "coffer-contract-"))),
          (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true })),
        ),
        (dir) => Sqlite.layer({ filename: join(dir, "coffer.db") }),
      ),
    ),
  )

/** A migrated Postgres database of its own, new at every build and dropped when the layer closes. */
export const freshPostgres = (): Layer.Layer<SqlDatabase.SqlDatabase, unknown> =>
  migrated(
    Layer.effect(
      SqlDatabase.SqlDatabase,
      Effect.flatMap(scopedPostgresDatabase, ({ url }) => Postgres.make({ url: Redacted.make(url) })),
    ),
  )

/** Runs `test` on the store helpers over a fresh SQLite database (`freshSqlite`), closed when it ends. */
export const onFreshSqliteStore = <A, E>(test: (store: SqlStore.SqlStore) => Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const context = yield* Layer.build(freshSqlite())
      const database = yield* Effect.provide(SqlDatabase.SqlDatabase, Layer.succeedContext(context))
      return yield* test(SqlStore.make(database))
    }).pipe(Effect.scoped),
  )
