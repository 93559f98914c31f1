/**
 * Hono's own router with the last answers kept, each made into one handler. Both apps' routes cannot all go through
 * Hono's fastest router (its regular-expression router refuses `/api/:platform` beside `/api/_ui/v1/…`), so Hono
 * falls back to its trie, whose search took a token-checked read more CPU than anything else of Hono (issue 10). A
 * service is asked the same few paths over and over (a CI fleet polling one schema), so each path's match is kept
 * and reused.
 *
 * A match of several handlers (the request frame, the write guards, the route) is handed to Hono as one handler that
 * runs them all (`./chain.ts`), made once with the match: Hono then calls it directly instead of composing the
 * handlers on every request, and a request they all answer at once is answered within the call.
 *
 * A match result is only read by Hono (handlers, parameters), never changed, so one result serves every request of
 * its path. The number of paths kept is bounded (`MATCHES_MAX`, the oldest leaves first) and long paths are never
 * kept, so paths a client makes up cannot grow memory.
 *
 * A path with a NUL in it (`%00`) is matched as no route's: it names nothing any store can hold (Postgres text
 * cannot hold a NUL, and refuses a lookup by one with an error), so it answers the app's 404 like any unknown path,
 * framed as every answer is.
 */
import type { ErrorHandler } from "hono"
import type { ParamIndexMap, ParamStash, Params, Result, Router } from "hono/router"
import { RegExpRouter } from "hono/router/reg-exp-router"
import { SmartRouter } from "hono/router/smart-router"
import { TrieRouter } from "hono/router/trie-router"
import type { H, RouterRoute } from "hono/types"
import { answeringRoute } from "../observability/route.js"
import { chainOf } from "./chain.js"

/** Paths whose match is kept at most. */
export const MATCHES_MAX = 1_000
/** Longer paths are matched every time: no route of ours needs them, and each would hold its own entry. */
export const MATCHED_PATH_MAX_LENGTH = 256

/** Where a path with a NUL is matched: a path no route takes, which the middlewares on `*` still frame. */
const NOWHERE = "/\u0000"

/** Whether `path` holds a NUL, raw or percent-encoded (Hono hands the router the path as the request gave it). */
const holdsNul = (path: string): boolean => path.includes("%00") || path.includes("\u0000")

/**
 * The methods a route may answer; `HEAD` follows `GET`, except on routes that refuse it (`refusingHead`), and
 * `OPTIONS` is answered on every path a route takes (`./base.ts`).
 */
const ANSWERABLE = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const

/** The first handlers of routes whose `GET` does not answer `HEAD` (`Endpoint.refusesHead`). */
const headRefused = new WeakSet<object>()

/**
 * Marks `handler`, the first of a route's handlers (the one Hono names its route by), as refusing `HEAD`: the route
 * answers it 405 itself (a secret's value, whose every read is audited), so `allowedMethods` does not offer it.
 */
export const refusingHead = <H extends object>(handler: H): H => {
  headRefused.add(handler)
  return handler
}

/** What Hono keeps in its router for each route: the handler and the route it was registered as. */
export type Entry = [H, RouterRoute]

/**
 * `result` with its handlers as one (`chainOf`), under the route that answers the request (or the last matched, a
 * middleware on `*`, when no route does) and with the parameters of every matched pattern.
 */
const asOne = (result: Result<Entry>, errorHandler: ErrorHandler): Result<Entry> => {
  const [matched, stash] = result as [Array<[Entry, ParamIndexMap | Params]>, ParamStash | undefined]
  if (matched.length < 2) return result
  const routes = matched.map(([[, route]]) => route)
  const answering = answeringRoute(routes)
  const at = answering === undefined ? matched.length - 1 : routes.indexOf(answering)
  // Both routers' parameters are records (values, or places in `stash`) and can be merged: the later pattern wins.
  const params = Object.assign({}, ...matched.map(([, own]) => own)) as ParamIndexMap | Params
  const entry: Entry = [
    chainOf(
      matched.map(([[handler]]) => handler),
      errorHandler,
    ),
    routes[at]!,
  ]
  return (stash === undefined ? [[[entry, params]]] : [[[entry, params]], stash]) as Result<Entry>
}

export class CachedRouter implements Router<Entry> {
  readonly name = "CachedRouter"
  readonly #router: Router<Entry> = new SmartRouter<Entry>({ routers: [new RegExpRouter(), new TrieRouter()] })
  readonly #matches = new Map<string, Result<Entry>>()
  readonly #errorHandler: ErrorHandler

  /** `errorHandler`: what answers an `Error` a handler throws; the app's `onError` should be the same. */
  constructor(errorHandler: ErrorHandler) {
    this.#errorHandler = errorHandler
  }

  add(method: string, path: string, handler: Entry): void {
    this.#matches.clear()
    this.#router.add(method, path, handler)
  }

  match(method: string, path: string): Result<Entry> {
    if (path.length > MATCHED_PATH_MAX_LENGTH) return this.#matchNow(method, path)
    const key = `${method} ${path}`
    const known = this.#matches.get(key)
    if (known !== undefined) return known
    const result = this.#matchNow(method, path)
    if (this.#matches.size >= MATCHES_MAX) this.#matches.delete(this.#matches.keys().next().value!)
    this.#matches.set(key, result)
    return result
  }

  /**
   * The methods `path` answers: those of its routes (with `HEAD` where `GET` is, unless refused), then `OPTIONS`,
   * which every path a route takes answers; none for a path no route takes. The one list every `Allow` header
   * names, a 405's and an `OPTIONS` 204's alike, so that the two never disagree: a path that exists answers 405
   * naming them, not the 404 of a path that does not. Asked of the router itself, not the kept matches, so that
   * requests for made-up methods cannot push the kept paths out.
   */
  allowedMethods(path: string): ReadonlyArray<string> {
    const allowed = this.#routeMethods(path)
    return allowed.length === 0 ? [] : [...allowed, "OPTIONS"]
  }

  /** The methods the routes on `path` answer, `HEAD` beside an unrefused `GET`. */
  #routeMethods(path: string): ReadonlyArray<string> {
    if (holdsNul(path)) return []
    const answering = (method: string) => {
      const [matched] = this.#router.match(method, path) as [Array<[Entry, unknown]>]
      // A middleware mounted on a path for every method (`app.use(path, …)`: a rate limit) answers nothing.
      return answeringRoute(matched.map(([[, route]]) => route).filter((route) => route.method !== "ALL"))
    }
    const allowed = ANSWERABLE.filter((method) => answering(method) !== undefined)
    if (!allowed.includes("GET")) return allowed
    const head = headRefused.has(answering("GET")!.handler) ? [] : ["HEAD"]
    return ["GET", ...head, ...allowed.filter((method) => method !== "GET")]
  }

  /** The match of `path` as one handler, a path with a NUL matched as no route's. */
  #matchNow(method: string, path: string): Result<Entry> {
    return asOne(this.#router.match(method, holdsNul(path) ? NOWHERE : path), this.#errorHandler)
  }
}
