/**
 * The headers every response carries, set by one middleware before the route: the request id
 * (`../observability/requestId.ts`), `no-store` (`./noStore.ts`) and the security headers (`./securityHeaders.ts`).
 *
 * Set before the route, a response the route makes through the context (`c.json`, `c.body`) is born with them, and
 * nothing touches it afterwards: setting a header on a finished response makes Hono copy it, which forces
 * @hono/node-server to build a full web `Response` instead of writing its light one straight to the socket (a fifth
 * of the CPU of a token-checked read, issue 10). One middleware rather than one per concern: each layer of Hono's
 * middleware chain costs a promise and a turn of the microtask queue on every request.
 *
 * A response made outside the context (`new Response`, as the web app's files are) does not inherit prepared
 * headers. The request id is the marker: when the answer lacks it, each header it lacks is added to it after the
 * route, so a page keeps the policy it set for itself.
 */
import type { MiddlewareHandler } from "hono"
import { REQUEST_ID_HEADER, resolveRequestId } from "../observability/requestId.js"
import { NO_STORE } from "./noStore.js"
import { type SecurityHeadersOptions, securityHeaders } from "./securityHeaders.js"

export type HeaderList = ReadonlyArray<readonly [name: string, value: string]>

export const presetHeaders = (options: SecurityHeadersOptions): MiddlewareHandler => {
  const fixed: HeaderList = [...NO_STORE, ...securityHeaders(options)]
  return async (c, next) => {
    const id = resolveRequestId(c)
    c.header(REQUEST_ID_HEADER, id)
    for (const [name, value] of fixed) c.header(name, value)
    await next()
    if (c.res.headers.has(REQUEST_ID_HEADER)) return
    c.header(REQUEST_ID_HEADER, id)
    for (const [name, value] of fixed) if (!c.res.headers.has(name)) c.header(name, value)
  }
}
