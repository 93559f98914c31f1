/**
 * Who is signed in, for a route that needs to know. The cookie is read and checked only by routes that ask,
 * so public paths cost no store round trip; a route that needs a person fails with 401 when there is none.
 *
 * The session cookie is the browser's, not the page's: a page loaded for alice sends carol's cookie once carol has
 * signed in in another tab. A request that names the person it was made for (`Coffer-Expected-User`, the web apps
 * send it on every call) is refused with 412 when the session is someone else's, before anything is done, so what
 * alice typed is never written as carol. A request without the header is taken as whoever's session it carries.
 */
import { Sessions, SignedInAsSomeoneElse, type StoreUnavailable, Unauthorized } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import type { Context } from "hono"
import { header } from "../request/header.js"
import { readSessionCookie } from "./cookie.js"

/** The request header naming the user id a request was made for, percent-encoded (`encodeURIComponent`). */
export const EXPECTED_USER_HEADER = "Coffer-Expected-User"

export const notSignedIn = () => new Unauthorized({ message: "Not signed in" })

const someoneElse = () =>
  new SignedInAsSomeoneElse({
    message:
      "Someone else is signed in in this browser now: this request was made for another person's page, and " +
      "nothing was done. Reload the page to continue as the person signed in.",
  })

/** Whether the header's value, raw or percent-encoded, is `userId`; a malformed encoding names nobody. */
const names = (expected: string, userId: string): boolean => {
  if (expected === userId) return true
  try {
    return decodeURIComponent(expected) === userId
  } catch {
    return false
  }
}

/** The live session of the request's cookie, if any; someone else's than the request names is refused. */
export const currentSession = (
  c: Context,
  service: string,
  publicOrigin: string | undefined,
): Effect.Effect<Sessions.Session | undefined, StoreUnavailable | SignedInAsSomeoneElse, Sessions.Sessions> => {
  const token = readSessionCookie(c, service, publicOrigin)
  if (token === undefined) return Effect.succeed(undefined)
  const expected = header(c, EXPECTED_USER_HEADER)
  const session = Sessions.Sessions.use((sessions) => sessions.get(token))
  if (expected === undefined) return session
  return Effect.flatMap(session, (found) =>
    found === undefined || names(expected, found.userId) ? Effect.succeed(found) : Effect.fail(someoneElse()),
  )
}

/** The live session, or 401. */
export const requireSession = (
  c: Context,
  service: string,
  publicOrigin: string | undefined,
): Effect.Effect<Sessions.Session, Unauthorized | StoreUnavailable | SignedInAsSomeoneElse, Sessions.Sessions> =>
  Effect.flatMap(currentSession(c, service, publicOrigin), (session) =>
    session === undefined ? Effect.fail(notSignedIn()) : Effect.succeed(session),
  )
