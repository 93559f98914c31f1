/**
 * Rate limits at the HTTP edge (DESIGN.md "Rate limits"): the kernel's `RateLimiter` keyed by the client
 * address (`../client/client.ts`: the socket's peer, or what a trusted proxy forwards; never what any client
 * writes in `X-Forwarded-For`), an IPv6 client by its /64 (`countedClient`).
 *
 * Two forms, for the two kinds of limited path:
 * - `rateLimit(options)`, a middleware that counts every request to a path: development login, back-channel
 *   logout, invite acceptance. Over the limit it answers 429 with
 *   `Retry-After` before the route runs; with the cache down, 503.
 * - `limitAttempt(c, options)`, an effect for a route to run where it decides an attempt counts, such as a
 *   failed credential check, so that legitimate traffic is never limited, or a sign-in's start and callback,
 *   whose refusal the sign-in page shows when a web app is served (`oidc.ts`).
 */
import { type Cache, RateLimiter, type StoreUnavailable, type TooManyRequests } from "@coffer/kernel"
import type * as Effect from "effect/Effect"
import type { Context, MiddlewareHandler } from "hono"
import { countedClient } from "../client/ipRange.js"
import type { Handle } from "../runtime.js"

export interface RateLimitOptions {
  /**
   * The path group: each has its own count per client. Name the service in it (`secrets:dev-login`,
   * `schemas:oidc`): both services may share one cache, and one's traffic must not limit the other.
   */
  readonly group: string
  /** Attempts per client and minute: `settings.rateLimit` (`COFFER_RATE_LIMIT`); `0` turns the limit off. */
  readonly limit: number
  /** The host's reading of the client address (`AppOptions.clientAddress`). */
  readonly clientAddress?: ((c: Context) => string | undefined) | undefined
}

/** Counts one attempt by this request's client; fails with 429 (or 503 when the cache is down) over the limit. */
export const limitAttempt = (
  c: Context,
  options: RateLimitOptions,
): Effect.Effect<void, TooManyRequests | StoreUnavailable, Cache.Cache> => {
  const address = options.clientAddress?.(c)
  return RateLimiter.consume({
    group: options.group,
    client: address === undefined ? undefined : countedClient(address),
    limit: options.limit,
  })
}

/** Counts every request to the paths it is mounted on, before their routes run. */
export const rateLimit =
  (handle: Handle<Cache.Cache>, options: RateLimitOptions): MiddlewareHandler =>
  async (c, next) => {
    if (options.limit <= 0) return next()
    return handle(c, limitAttempt(c, options), async () => {
      await next()
      return c.res
    })
  }
