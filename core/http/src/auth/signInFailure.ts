/**
 * How a failed sign-in is answered, in one place (seed 001 §4): as `{ error }` through the error table
 * (expired, rejected and email 400, refused 403, linking 409, off 404, unavailable 503), or, when the web app
 * is served, as a redirect to `/sign-in?error=<reason>` (a rate-limited sign-in, 429, as `unavailable`).
 * Outages are logged on the redirect path, since no error response carries them to the log there.
 */
import type { Identity } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import type { Context } from "hono"
import { type HttpError, toErrorResponse } from "../errors.js"

/** The `/sign-in?error=` values of seed 001 §4. */
export type SignInFailure = Identity.IdentityError["reason"] | "linking" | "off"

/** How a sign-in route answers once its work is done: a redirect, usually, with cookies set on the way. */
export type Reply = (c: Context) => Response

/** The `/sign-in?error=` reason for a failure; other errors by what their status means. */
export const signInFailure = (error: HttpError): SignInFailure => {
  if (error._tag === "IdentityError") return error.reason
  switch (toErrorResponse(error).status) {
    case 404:
      return "off"
    case 409:
      return "linking"
    // Too many sign-ins from this address: like an outage, it passes within minutes.
    case 429:
    case 503:
      return "unavailable"
    case 403:
      return "refused"
    default:
      return "rejected"
  }
}

/**
 * A sign-in step's failures as the browser should get them: with a web app served, every failure but those
 * `keepJson` selects becomes a redirect to the sign-in page; otherwise they stay errors, for the error table.
 */
export const answerSignInFailure = <R>(
  work: Effect.Effect<Reply, HttpError, R>,
  options: { readonly webApp: boolean; readonly keepJson?: (error: HttpError) => boolean },
): Effect.Effect<Reply, HttpError, R> => {
  if (!options.webApp) return work
  return work.pipe(
    Effect.catch((error): Effect.Effect<Reply, HttpError> => {
      if (options.keepJson?.(error) === true) return Effect.fail(error)
      const reason = signInFailure(error)
      const reply: Reply = (context) => context.redirect(`/sign-in?error=${reason}`, 302)
      return reason === "unavailable"
        ? Effect.as(Effect.logWarning(`Sign-in failed: ${error._tag}: ${error.message}`), reply)
        : Effect.succeed(reply)
    }),
  )
}
