/**
 * Facts about the database kept in `coffer_meta` (migration `0001_meta`) by the hosts, beside the ones migrations
 * and the master-key check keep there: a value each start records, to tell the next one what the last one had.
 */

import type { StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { SqlDatabase } from "./SqlDatabase.js"
import * as SqlStore from "./SqlStore.js"

/** Stores `value` under `key` and answers the value it replaced (undefined when there was none). */
export const swap = (key: string, value: string): Effect.Effect<string | undefined, StoreUnavailable, SqlDatabase> =>
  Effect.flatMap(SqlDatabase, (database) => {
    const store = SqlStore.make(database)
    return store.transaction(
      Effect.gen(function* () {
        const stored = yield* store.query((db) =>
          db.selectFrom("coffer_meta").select("value").where("key", "=", key).executeTakeFirst(),
        )
        if (stored?.value === value) return value
        yield* store.query((db) =>
          db
            .insertInto("coffer_meta")
            .values({ key, value })
            .onConflict((conflict) => conflict.column("key").doUpdateSet({ value }))
            .execute(),
        )
        return stored?.value
      }),
    )
  })
