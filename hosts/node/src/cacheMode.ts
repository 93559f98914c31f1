/**
 * Every instance on one database must use one cache: Redis with the same prefix everywhere, or none has Redis.
 * Instances that differ do not see each other's revocations (one deleting an API key or ending a session tells
 * only those on its own cache), and nothing they exchange would show it. So each start records its cache in
 * `coffer_meta` and warns when the last start on this database had another: during a rolling restart that moves
 * every instance over the warning is expected once; any other time it names the split.
 */
import { type SqlDatabase, SqlMeta } from "@coffer/adapter-sql"
import type { StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import type { HostSettings } from "./config/hostSettings.js"

const KEY = "cache"

/** The instance's cache as recorded: the mode and Redis prefix, never the URL (it may hold a password). */
const cacheModeOf = (settings: HostSettings): string =>
  settings.redisUrl === undefined
    ? "in process (COFFER_REDIS_URL unset)"
    : `Redis (COFFER_REDIS_URL set, COFFER_REDIS_PREFIX=${settings.redisPrefix})`

/** Records this instance's cache, and warns when the last start on this database recorded another. */
export const noteCacheMode = (settings: HostSettings): Effect.Effect<void, StoreUnavailable, SqlDatabase.SqlDatabase> =>
  Effect.gen(function* () {
    const mode = cacheModeOf(settings)
    const before = yield* SqlMeta.swap(KEY, mode)
    if (before === undefined || before === mode) return
    yield* Effect.logWarning(
      `the last start on this database used the cache ${before}; this one uses ${mode}. Instances on one ` +
        "database must share one cache: one that differs does not see the others' revocations (an API key " +
        "deleted or a session ended on one is still taken by the other). Restart any instance still on the other " +
        "setting with this one's; once every instance has moved, this is said no more",
    )
  })
