/**
 * The session cookie (DESIGN.md "Security decisions"): `HttpOnly`, `SameSite=Lax`, `Path=/`, seven days;
 * on an https public origin also `Secure` and the `__Host-` prefix, which the browser only accepts from a
 * secure origin for the whole host, so a sibling subdomain cannot plant or shadow it.
 */
import { Sessions } from "@coffer/kernel"
import type { Context } from "hono"
import { deleteCookie, getCookie, setCookie } from "hono/cookie"

const BASE_NAME = "coffer_session"

const isSecureOrigin = (publicOrigin: string | undefined) => publicOrigin?.startsWith("https://") === true

export const sessionCookieName = (publicOrigin: string | undefined) =>
  isSecureOrigin(publicOrigin) ? `__Host-${BASE_NAME}` : BASE_NAME

export const readSessionCookie = (c: Context, publicOrigin: string | undefined): string | undefined =>
  getCookie(c, sessionCookieName(publicOrigin))

export const setSessionCookie = (c: Context, publicOrigin: string | undefined, token: string) =>
  setCookie(c, sessionCookieName(publicOrigin), token, {
    httpOnly: true,
    sameSite: "Lax",
    path: "/",
    secure: isSecureOrigin(publicOrigin),
    maxAge: Math.floor(Sessions.SESSION_LIFETIME_MS / 1000),
  })

export const clearSessionCookie = (c: Context, publicOrigin: string | undefined) =>
  deleteCookie(c, sessionCookieName(publicOrigin), { path: "/", secure: isSecureOrigin(publicOrigin) })
