/**
 * Hono's own router with the last answers kept. Both apps' routes cannot all go through Hono's fastest router
 * (its regular-expression router refuses `/api/:platform` beside `/api/_ui/v1/…`), so Hono falls back to its trie,
 * whose search took a token-checked read more CPU than anything else of Hono (issue 10). A service is asked the same
 * few paths over and over (a CI fleet polling one schema), so each path's match is kept and reused.
 *
 * A match result is only read by Hono (handlers, parameters), never changed, so one result serves every request of
 * its path. The number of paths kept is bounded (`MATCHES_MAX`, the oldest leaves first) and long paths are never
 * kept, so paths a client makes up cannot grow memory.
 */
import type { Result, Router } from "hono/router"
import { RegExpRouter } from "hono/router/reg-exp-router"
import { SmartRouter } from "hono/router/smart-router"
import { TrieRouter } from "hono/router/trie-router"

/** Paths whose match is kept at most. */
export const MATCHES_MAX = 1_000
/** Longer paths are matched every time: no route of ours needs them, and each would hold its own entry. */
export const MATCHED_PATH_MAX_LENGTH = 256

export class CachedRouter<T> implements Router<T> {
  readonly name = "CachedRouter"
  readonly #router: Router<T> = new SmartRouter<T>({ routers: [new RegExpRouter(), new TrieRouter()] })
  readonly #matches = new Map<string, Result<T>>()

  add(method: string, path: string, handler: T): void {
    this.#matches.clear()
    this.#router.add(method, path, handler)
  }

  match(method: string, path: string): Result<T> {
    if (path.length > MATCHED_PATH_MAX_LENGTH) return this.#router.match(method, path)
    const key = `${method} ${path}`
    const known = this.#matches.get(key)
    if (known !== undefined) return known
    const result = this.#router.match(method, path)
    if (this.#matches.size >= MATCHES_MAX) this.#matches.delete(this.#matches.keys().next().value!)
    this.#matches.set(key, result)
    return result
  }
}
