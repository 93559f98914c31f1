/**
 * The kernel's `KeyCanary` on SQL: the canary is the `master_key_canary` row of `coffer_meta` (a fact about
 * the database, like its creation time), and a database without one offers a project's data key instead.
 * `create` inserts only if absent, so two instances starting at once keep the first canary.
 */
import { MasterKeyCheck } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type SqlBool, sql } from "kysely"
import { SqlDatabase } from "./SqlDatabase.js"
import * as SqlStore from "./SqlStore.js"

const CANARY = "master_key_canary"

export const layer: Layer.Layer<MasterKeyCheck.KeyCanary, never, SqlDatabase> = Layer.effect(
  MasterKeyCheck.KeyCanary,
  Effect.map(SqlDatabase, (database) => {
    const { query } = SqlStore.make(database)
    const read = query((db) =>
      db.selectFrom("coffer_meta").select("value").where("key", "=", CANARY).executeTakeFirst(),
    ).pipe(Effect.map((row) => row?.value))
    return {
      read,
      create: (canary) =>
        query((db) =>
          db
            .insertInto("coffer_meta")
            .values({ key: CANARY, value: canary })
            .onConflict((conflict) => conflict.column("key").doNothing())
            .execute(),
        ).pipe(
          Effect.andThen(read),
          Effect.map((stored) => stored ?? canary),
        ),
      replace: ({ expected, next }) =>
        query((db) =>
          db
            .updateTable("coffer_meta")
            .set({ value: next })
            .where("key", "=", CANARY)
            .where("value", "=", expected)
            .executeTakeFirst(),
        ).pipe(Effect.map((result) => result.numUpdatedRows > 0n)),
      anyDataKey: query((db) =>
        db.selectFrom("secrets_projects").select("data_key").orderBy("id").limit(1).executeTakeFirst(),
      ).pipe(Effect.map((row) => row?.data_key)),
      projectWrappedElsewhere: (prefixes) => {
        // `substr`, not `like`: a prefix is compared as it is, whatever characters it holds.
        const outside = (column: "p.data_key" | "k.data_key") =>
          prefixes.length === 0
            ? sql<SqlBool>`1 = 1`
            : sql<SqlBool>`${sql.join(
                prefixes.map((prefix) => sql`substr(${sql.ref(column)}, 1, ${prefix.length}) <> ${prefix}`),
                sql` and `,
              )}`
        return query((db) =>
          db
            .selectFrom("secrets_projects as p")
            .select("p.slug")
            .where(({ or, exists, selectFrom }) =>
              or([
                outside("p.data_key"),
                exists(
                  selectFrom("secrets_data_keys as k")
                    .select("k.project_id")
                    .whereRef("k.project_id", "=", "p.id")
                    .where(outside("k.data_key")),
                ),
              ]),
            )
            .orderBy("p.slug")
            .limit(1)
            .executeTakeFirst(),
        ).pipe(Effect.map((row) => row?.slug))
      },
    }
  }),
)
