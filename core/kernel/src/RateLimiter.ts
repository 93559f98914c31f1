/**
 * Per-client rate limits (DESIGN.md "Rate limits"): sign-in, development login, invite acceptance and
 * failed-credential paths allow `COFFER_RATE_LIMIT` attempts per client address per minute.
 *
 * The count lives in the Cache port, so every instance behind one Redis shares it: a fixed window whose first
 * attempt starts it (`Cache.increment`), one key per path group and client address. Over the limit the
 * attempt fails with `TooManyRequests`, whose `retryAfterSeconds` is what is left of the window. When the
 * cache cannot be reached the attempt fails with `StoreUnavailable` (503): a limit that cannot be counted is
 * not waived, since these are the paths an attacker would aim at during an outage.
 */
import * as Effect from "effect/Effect"
import { Cache } from "./Cache.js"
import { TooManyRequests } from "./errors.js"
import type { StoreUnavailable } from "./StoreUnavailable.js"

export const WINDOW_MS = 60_000

/** Counts for requests whose client address is unknown share one key: together they are one client. */
export const UNKNOWN_CLIENT = "unknown"

export interface Attempt {
  /** The path group, e.g. `secrets:dev-login`: each group has its own count, so a group names its service too. */
  readonly group: string
  /** The client's address; undefined when the host cannot tell. */
  readonly client: string | undefined
  /** Attempts allowed per window; `0` turns the limit off. */
  readonly limit: number
}

export const key = (group: string, client: string | undefined) => `ratelimit:${group}:${client ?? UNKNOWN_CLIENT}`

/** Counts one attempt; fails once the client has used up the window's allowance. */
export const consume = (attempt: Attempt): Effect.Effect<void, TooManyRequests | StoreUnavailable, Cache> => {
  if (attempt.limit <= 0) return Effect.void
  return Effect.gen(function* () {
    const cache = yield* Cache
    const counter = key(attempt.group, attempt.client)
    const count = yield* cache.increment(counter, WINDOW_MS)
    if (count <= attempt.limit) return
    const left = (yield* cache.ttl(counter)) ?? WINDOW_MS
    const retryAfterSeconds = Math.max(1, Math.ceil(left / 1000))
    return yield* new TooManyRequests({
      message: `Too many attempts; try again in ${retryAfterSeconds} seconds`,
      retryAfterSeconds,
    })
  })
}
