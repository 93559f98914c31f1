/**
 * What logs, metrics and spans call a request: its method and its route template (`/api/:platform/:version`),
 * never the raw path or query string, which carry names, ids and sometimes credentials, and would give metrics one
 * series per URL. Both are closed sets: an unknown method is `OTHER`, a path no route takes is `unmatched`.
 */
import type { Context } from "hono"
import { matchedRoutes } from "hono/route"
import type { RouterRoute } from "hono/types"

/** The route template of a request that no route takes (a 404, a preflight, the web app's pages). */
export const UNMATCHED_ROUTE = "unmatched"

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/** The request's method, or `OTHER` for anything a client made up. */
export const methodLabel = (method: string): string => (METHODS.has(method) ? method : "OTHER")

/**
 * The first route that matches the request, which is the one that answers it: Hono matches every route before any
 * middleware runs, so this is known from the start, even when a middleware answers first (a 413 on a write is still
 * counted under its route). Middleware mounted with `app.use` match every path as `*`.
 */
export const matchedRoute = (c: Context): RouterRoute | undefined => answeringRoute(matchedRoutes(c))

/** Of the routes a request matched, in order, the one that answers it (`matchedRoute`). */
export const answeringRoute = (routes: ReadonlyArray<RouterRoute>): RouterRoute | undefined => {
  for (const route of routes) {
    if (route.path !== "*" && route.path !== "/*") return route
  }
  return undefined
}

/** The template of the route that answers the request (`matchedRoute`), or `unmatched`. */
export const routeTemplate = (c: Context): string => matchedRoute(c)?.path ?? UNMATCHED_ROUTE
