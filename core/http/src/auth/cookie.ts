/**
 * The session cookie (DESIGN.md "Security decisions"): `HttpOnly`, `SameSite=Lax`, `Path=/`, seven days;
 * on an https public origin also `Secure` and the `__Host-` prefix, which the browser only accepts from a
 * secure origin for the whole host, so a sibling subdomain cannot plant or shadow it. `Secure` is also set when
 * the request itself came over https, directly or through a trusted proxy (`X-Forwarded-Proto`): a cookie given
 * over https is never sent back over plain http. The name follows the configured origin alone, so that it is
 * the same on every request.
 *
 * Every cookie is named for its service (`coffer_secrets_session`, `coffer_schemas_oidc_state`): both services
 * often run on one host, and browsers tell cookies apart by host, not by port, so one shared name would let
 * signing in to one service sign the person out of the other.
 */
import { Sessions } from "@coffer/kernel"
import type { Context } from "hono"
import { deleteCookie, setCookie } from "hono/cookie"
import { parse } from "hono/utils/cookie"
import { isHttps } from "../client/client.js"
import { header } from "../request/header.js"

export const isSecureOrigin = (publicOrigin: string | undefined) => publicOrigin?.startsWith("https://") === true

/** Whether a cookie set on this request carries `Secure`. */
export const secureCookie = (c: Context, publicOrigin: string | undefined) => isSecureOrigin(publicOrigin) || isHttps(c)

/** `coffer_<service>_<purpose>`, with the `__Host-` prefix on an https public origin. */
export const cookieName = (service: string, purpose: "session" | "oidc_state", publicOrigin: string | undefined) =>
  `${isSecureOrigin(publicOrigin) ? "__Host-" : ""}coffer_${service}_${purpose}`

export const sessionCookieName = (service: string, publicOrigin: string | undefined) =>
  cookieName(service, "session", publicOrigin)

const ANY_SESSION_COOKIE = /(?:^|;\s*)(?:__Host-)?coffer_[a-z]+_session=/

/**
 * Whether a `Cookie` header carries a session cookie of either service. Checks that guard cookie-authenticated
 * requests use it, so that they apply whichever service's cookie a browser sends: more checks, never fewer.
 */
export const carriesSessionCookie = (cookieHeader: string | undefined): boolean =>
  cookieHeader !== undefined && ANY_SESSION_COOKIE.test(cookieHeader)

/**
 * The request's cookie `name`. Hono's `getCookie` reads the header from the web `Request`, which on Node makes
 * @hono/node-server build one (undici `Request`, `Headers`, `AbortSignal`): a few percent of a session's write
 * (issue 10). The header is read as every other is (`header`), and parsed as Hono parses it.
 */
export const readCookie = (c: Context, name: string): string | undefined => {
  const cookies = header(c, "cookie")
  return cookies === undefined ? undefined : parse(cookies, name)[name]
}

export const readSessionCookie = (c: Context, service: string, publicOrigin: string | undefined): string | undefined =>
  readCookie(c, sessionCookieName(service, publicOrigin))

export const setSessionCookie = (c: Context, service: string, publicOrigin: string | undefined, token: string) =>
  setCookie(c, sessionCookieName(service, publicOrigin), token, {
    httpOnly: true,
    sameSite: "Lax",
    path: "/",
    secure: secureCookie(c, publicOrigin),
    maxAge: Math.floor(Sessions.SESSION_LIFETIME_MS / 1000),
  })

export const clearSessionCookie = (c: Context, service: string, publicOrigin: string | undefined) =>
  deleteCookie(c, sessionCookieName(service, publicOrigin), { path: "/", secure: secureCookie(c, publicOrigin) })
