/**
 * Who is signed in, for a route that needs to know. The cookie is read and checked only by routes that ask,
 * so public paths cost no store round trip; a route that needs a person fails with 401 when there is none.
 */
import { Sessions, type StoreUnavailable, Unauthorized } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import type { Context } from "hono"
import { readSessionCookie } from "./cookie.js"

export const notSignedIn = () => new Unauthorized({ message: "Not signed in" })

/** The live session of the request's cookie, if any. */
export const currentSession = (
  c: Context,
  service: string,
  publicOrigin: string | undefined,
): Effect.Effect<Sessions.Session | undefined, StoreUnavailable, Sessions.Sessions> => {
  const token = readSessionCookie(c, service, publicOrigin)
  if (token === undefined) return Effect.succeed(undefined)
  return Sessions.Sessions.use((sessions) => sessions.get(token))
}

/** The live session, or 401. */
export const requireSession = (
  c: Context,
  service: string,
  publicOrigin: string | undefined,
): Effect.Effect<Sessions.Session, Unauthorized | StoreUnavailable, Sessions.Sessions> =>
  Effect.flatMap(currentSession(c, service, publicOrigin), (session) =>
    session === undefined ? Effect.fail(notSignedIn()) : Effect.succeed(session),
  )
