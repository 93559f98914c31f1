/**
 * Cross-site request forgery defence for cookie-authenticated writes (DESIGN.md "Security decisions"): when
 * a write carries the session cookie and an `Origin` header, the origin must be the request's own (scheme and
 * `Host`), the configured public origin, or one listed in `CORS_ORIGIN`; otherwise 403 before any work.
 * Requests without the cookie (API tokens and keys in `Authorization`) are not forgeable by a browser and pass,
 * except on the sign-in paths given (the development login): a forged sign-in carries no cookie, and would put the
 * browser in the forger's session (login CSRF).
 * Together with `SameSite=Lax` and the JSON-only rule for bodies this closes the classic CSRF routes.
 *
 * On those sign-in paths the request's own origin passes only when it names this machine (`localhost`, an IP
 * address): a DNS-rebinding page (its own name, pointed at 127.0.0.1 once it has loaded) reaches a loopback port
 * with that name in both `Host` and `Origin`, which then agree, and the development login would let it sign in as
 * anyone and read every secret of a developer's instance. Such a page always has a name, never an address, so
 * addresses pass (a colleague's browser at 192.168.1.5 on purpose), as do the public origin and `CORS_ORIGIN`.
 */
import { Forbidden } from "@coffer/kernel"
import type { MiddlewareHandler } from "hono"
import { errorResponse } from "../errors.js"
import { header } from "../request/header.js"
import { carriesSessionCookie } from "./cookie.js"

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

export interface SameOriginOptions {
  readonly publicOrigin: string | undefined
  readonly corsOrigins: ReadonlyArray<string>
  /** Paths exempt from the check (the back-channel logout POST carries no cookie anyway). */
  readonly exempt?: ReadonlyArray<string>
  /** Paths checked with or without the cookie: sign-ins, which start the session a cookie would carry. */
  readonly signIns?: ReadonlyArray<string>
}

/** Whether `origin` names this machine: `localhost` (or a name under it) or an IP address, never a DNS name. */
export const namesThisMachine = (origin: string): boolean => {
  let hostname: string
  try {
    hostname = new URL(origin).hostname
  } catch {
    return false
  }
  return (
    hostname === "localhost" ||
    hostname.endsWith(".localhost") ||
    hostname.startsWith("[") ||
    /^\d{1,3}(?:\.\d{1,3}){3}$/.test(hostname)
  )
}

export const sameOriginWrites = (options: SameOriginOptions): MiddlewareHandler => {
  const exempt = new Set(options.exempt ?? [])
  const signIns = new Set(options.signIns ?? [])
  const allowed = new Set([
    ...(options.publicOrigin === undefined ? [] : [options.publicOrigin]),
    ...options.corsOrigins,
  ])
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method) || exempt.has(c.req.path)) return next()
    const origin = header(c, "Origin")
    const signIn = signIns.has(c.req.path)
    if (origin === undefined || (!signIn && !carriesSessionCookie(header(c, "Cookie")))) return next()
    if (allowed.has(origin)) return next()
    const own = `${new URL(c.req.url).protocol}//${header(c, "Host") ?? new URL(c.req.url).host}`
    if (origin !== own) return errorResponse(c, new Forbidden({ message: "Cross-origin request refused" }))
    if (!signIn || namesThisMachine(origin)) return next()
    const message = `Sign-in refused at ${origin}: only localhost, an IP address or the service's public origin`
    return errorResponse(c, new Forbidden({ message }))
  }
}
