/**
 * What the development login of both services shares (DESIGN.md "Development login"): its path, the check of
 * the e-mail address, the answer outside development, and starting the session. The route exists only when
 * `COFFER_ENV=development`; otherwise it answers 404 like any unknown path, registered explicitly so that no
 * other route (a schemas platform called `auth`) can ever answer it.
 */
import { NotFound, Sessions, SignIn, type StoreUnavailable } from "@coffer/kernel"
import { Effect, Schema } from "effect"
import type { Context, Hono } from "hono"
import type { Handle } from "../runtime.js"
import { clearSessionCookie, readSessionCookie } from "./cookie.js"

export const DEV_LOGIN_PATH = "/api/auth/dev-login"
export const LOGOUT_PATH = "/api/auth/logout"

/** The longest address SMTP allows; anything longer is not an address. */
const MAX_EMAIL_LENGTH = 254

/** `local@domain`, without spaces, as typed: nothing is trimmed or guessed. */
export const Email = Schema.String.check(
  Schema.isMaxLength(MAX_EMAIL_LENGTH),
  Schema.isPattern(/^[^\s@]+@[^\s@]+$/, { message: "expected an e-mail address such as ada@example.com" }),
)

export const devLoginOff = () => new NotFound({ message: "Not found" })

/** A new session for a sign-in, ending the one the browser had (`SignIn.startSession`). */
export const startSession = (
  c: Context,
  publicOrigin: string | undefined,
  session: Sessions.NewSession,
): Effect.Effect<string, StoreUnavailable, Sessions.Sessions> =>
  SignIn.startSession(readSessionCookie(c, publicOrigin), session)

/** Ends the request's session, if it has one; logging out twice, or without a session, is not an error. */
export const endSession = (
  c: Context,
  publicOrigin: string | undefined,
): Effect.Effect<void, StoreUnavailable, Sessions.Sessions> => {
  const token = readSessionCookie(c, publicOrigin)
  if (token === undefined) return Effect.void
  return Sessions.Sessions.use((sessions) => sessions.revoke(token))
}

/** `POST /api/auth/logout`, the same on both services: ends the session server-side and clears the cookie. */
export const mountLogout = (
  app: Hono,
  options: { readonly handle: Handle<Sessions.Sessions>; readonly publicOrigin: string | undefined },
) =>
  app.post(LOGOUT_PATH, (c) =>
    options.handle(c, endSession(c, options.publicOrigin), () => {
      clearSessionCookie(c, options.publicOrigin)
      return c.json({ ok: true })
    }),
  )
