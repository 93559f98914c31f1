/**
 * CORS from `CORS_ORIGIN` (seed 000 §1, DESIGN.md host contract). Only listed origins get
 * `Access-Control-Allow-Origin`, always echoed exactly (never `*`), with credentials allowed so that a
 * dashboard on another origin can use its session cookie. Other origins get no allow header at all, and
 * their preflights fall through to the app's `OPTIONS` answer (`../app/base.ts`: 204 with `Allow` on a path a route
 * takes, 404 elsewhere), which the browser refuses for want of these headers. With no origin listed the middleware
 * does nothing.
 *
 * Hand-written rather than `hono/cors`, for two tested rules (`middleware.test.ts`, "CORS"): `hono/cors` answers
 * every `OPTIONS` itself, with its allow headers for an unlisted origin too (`Access-Control-Allow-Methods`…), and
 * it sets its headers on `c.res` before the route and `Vary` after it, which builds a full response on the hot
 * path (`presetHeaders.ts`, issue 10).
 *
 * Origins are compared in the normalised form the host's settings parser produces, which is also the form browsers
 * send (`scheme://host[:port]`, lowercase, no default port).
 */
import type { MiddlewareHandler } from "hono"
import { header } from "../request/header.js"

export const ALLOWED_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE"
/**
 * Request headers a listed origin's script may send besides the safelisted ones. `If-None-Match` is not
 * safelisted: without it here a browser refuses the preflight of a conditional schema read (`../schemas/schemas.ts`).
 */
export const ALLOWED_HEADERS = "Authorization, Content-Type, Coffer-Expected-User, If-None-Match"
/**
 * Headers a browser script may read besides the safelisted ones: rate limits, `.env` downloads, request ids,
 * when the API key it uses expires (`../secrets/context.ts`), and a schema read's `ETag`, which a conditional
 * read sends back in `If-None-Match`.
 */
export const EXPOSED_HEADERS = "Retry-After, Content-Disposition, X-Request-Id, Coffer-Api-Key-Expires, ETag"
const PREFLIGHT_MAX_AGE_SECONDS = "600"

export const cors = (allowedOrigins: ReadonlyArray<string>): MiddlewareHandler => {
  const allowed = new Set(allowedOrigins)
  return async (c, next) => {
    if (allowed.size === 0) return next()
    const origin = header(c, "Origin")
    const isAllowed = origin !== undefined && allowed.has(origin)
    if (isAllowed && c.req.method === "OPTIONS" && header(c, "Access-Control-Request-Method") !== undefined) {
      return c.body(null, 204, {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Credentials": "true",
        "Access-Control-Allow-Methods": ALLOWED_METHODS,
        "Access-Control-Allow-Headers": ALLOWED_HEADERS,
        "Access-Control-Max-Age": PREFLIGHT_MAX_AGE_SECONDS,
        Vary: "Origin",
      })
    }
    // Set before the route, so that the response is born with them (`presetHeaders.ts`); the answer depends on
    // Origin whenever origins are listed, so caches must key on it.
    if (isAllowed) {
      c.header("Access-Control-Allow-Origin", origin)
      c.header("Access-Control-Allow-Credentials", "true")
      c.header("Access-Control-Expose-Headers", EXPOSED_HEADERS)
    }
    c.header("Vary", "Origin", { append: true })
    await next()
    // A response made outside the context (`presetHeaders.ts`) is born without them.
    if (isAllowed && !c.res.headers.has("Access-Control-Allow-Origin")) {
      c.header("Access-Control-Allow-Origin", origin)
      c.header("Access-Control-Allow-Credentials", "true")
      c.header("Access-Control-Expose-Headers", EXPOSED_HEADERS)
    }
    const vary = c.res.headers.get("Vary")
    if (vary === null || !/(^|,)\s*origin\s*(,|$)/i.test(vary)) c.header("Vary", "Origin", { append: true })
  }
}
