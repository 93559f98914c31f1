/**
 * The development login of both services (DESIGN.md "Development login"), one route parameterized by what a
 * development login means to each (`schemasAuth.ts`, `secretsAuth.ts`), and the logout they share.
 *
 * - `POST /api/auth/dev-login`: only with `COFFER_ENV=development`; otherwise it answers 404 like any unknown
 *   path, registered explicitly so that no other route (a schemas platform called `auth`) can ever answer it.
 *   The body is decoded with the service's schema; the service's `signIn` says which session to start and which
 *   user to answer as `{ user }`. The session is started as every sign-in's is (`SignIn.startSession`: the
 *   browser's previous session ends). Rate-limited per client, group `<service>:dev-login`: both services may
 *   run in one process on one cache, and neither's traffic may limit the other.
 * - `POST /api/auth/logout`: ends the session server-side and clears the cookie; `{ ok: true }`, also when
 *   there was no session (the outcome the caller wants holds either way). A request with an `Authorization`
 *   header (an API key, an API token) is refused with 403 and changes nothing, the cookie it may also carry
 *   included: the header names the caller alone (`credentials.ts`), and a `{ ok: true }` read as "this key is
 *   done with" while the key kept working. A key or token is revoked by deleting it, which the refusal says.
 */
import { type Cache, Forbidden, NotFound, Sessions, SignIn, type StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Context, Hono } from "hono"
import type { ServiceSettings } from "../app/settings.js"
import { errorResponse, type HttpError } from "../errors.js"
import { Ok, PUBLIC } from "../openapi/common.js"
import { type Endpoint, endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { header } from "../request/header.js"
import type { Handle } from "../runtime.js"
import { clearSessionCookie, readSessionCookie, setSessionCookie } from "./cookie.js"
import { rateLimit } from "./rateLimit.js"

export const DEV_LOGIN_PATH = "/api/auth/dev-login"
export const LOGOUT_PATH = "/api/auth/logout"

/** The longest address SMTP allows; anything longer is not an address. */
const MAX_EMAIL_LENGTH = 254

/**
 * `local@domain`, without spaces, control characters (a NUL would reach the store, where Postgres refuses it),
 * format characters (a right-to-left override would show another address in member lists and the audit log) or
 * unpaired surrogates (UTF-8 cannot store them: SQLite kept bytes that read back as another address, Postgres
 * U+FFFD, so that a second address signed in to the same account), as typed: nothing is trimmed or guessed.
 */
export const Email = Schema.String.check(
  Schema.isMaxLength(MAX_EMAIL_LENGTH),
  Schema.isPattern(/^[^\s@\p{Cc}\p{Cf}\p{Cs}]+@[^\s@\p{Cc}\p{Cf}\p{Cs}]+$/u, {
    message: "expected an e-mail address such as ada@example.com",
  }),
)

export const devLoginOff = () => new NotFound({ message: "Not found" })

/** What a development login means to a service: the session to start, and the user to answer. */
export type DevSignIn<B, E, R> = (
  body: B,
) => Effect.Effect<{ readonly session: Sessions.NewSession; readonly user: unknown }, E, R>

export interface DevLoginOptions<B, E, R> {
  readonly handle: Handle<Sessions.Sessions | Cache.Cache | R>
  readonly settings: ServiceSettings
  /** The service's public origin: the cookie's name and `Secure` follow its scheme. */
  readonly publicOrigin: string | undefined
  /** `AppOptions.clientAddress`, for the per-client rate limit. */
  readonly clientAddress?: ((c: Context) => string | undefined) | undefined
  /** Names the rate-limit group `<service>:dev-login`. */
  readonly service: string
  readonly body: Schema.Decoder<B>
  /** The `user` the service answers, for the document. */
  readonly user: Schema.Top
  readonly signIn: DevSignIn<B, E, Sessions.Sessions | Cache.Cache | R>
}

/** The development login as the document describes it, with the service's body and user. */
const devLoginEndpoint = <B>(body: Schema.Decoder<B>, user: Schema.Top): Endpoint<B> =>
  endpoint({
    method: "POST",
    path: DEV_LOGIN_PATH,
    summary: "Development login",
    description:
      "Only with `COFFER_ENV=development` (404 otherwise). Starts a session (the cookie is set) as the person of " +
      "this address. Rate-limited per client. From a browser, only at localhost, an IP address, the public origin " +
      "or a CORS origin (403 at any other name, as a DNS-rebinding page would use).",
    tag: "Sign-in",
    security: PUBLIC,
    body,
    responses: {
      200: {
        description: "Signed in; the session cookie is set",
        schema: Schema.Struct({ user }),
        headers: { "Set-Cookie": "The session cookie" },
      },
    },
    errors: [403, 404, 429],
  })

/** A service's bearer credential, as the refusal of a logout made with one names it. */
export interface BearerCredential {
  /** What it is called: `API key`, `API token`. */
  readonly name: string
  /** How it is revoked instead, completing "stays valid until …": `it is deleted (DELETE /api/api-keys/{id})`. */
  readonly revokedWhen: string
}

/** The logout as the document describes it, with the service's bearer credential. */
const logoutEndpoint = (bearer: BearerCredential) =>
  endpoint({
    method: "POST",
    path: LOGOUT_PATH,
    summary: "Sign out",
    description:
      "Ends the session server-side and clears the cookie; `{ ok: true }` also when there was none. A request " +
      `with an \`Authorization\` header (an ${bearer.name}) is refused with 403 and changes nothing, its session ` +
      `cookie included: logout ends a browser session, and an ${bearer.name} stays valid until ${bearer.revokedWhen}.`,
    tag: "Sign-in",
    security: PUBLIC,
    responses: { 200: Ok },
    errors: [403, 503],
  })

/** Why a logout made with a bearer credential did nothing, and what ends that credential instead. */
const logoutRefused = (bearer: BearerCredential) =>
  new Forbidden({
    message:
      "Logout ends a browser session and takes no Authorization header: nothing was ended; an " +
      `${bearer.name} stays valid until ${bearer.revokedWhen}`,
  })

export const mountDevLogin = <B, E extends HttpError, R>(app: Hono, options: DevLoginOptions<B, E, R>): void => {
  const { handle, settings, publicOrigin } = options
  const described = devLoginEndpoint(options.body, options.user)
  if (settings.environment !== "development") {
    const off = (c: Context) => errorResponse(c, devLoginOff())
    // Every method answers the 404 of a path that is not there: with the POST route alone, a GET answered 405 "it
    // answers POST" (and an OPTIONS 204 `Allow: POST`) beside that POST's 404, saying the login was there after all.
    app.all(DEV_LOGIN_PATH, off)
    // Still described, since the document says when it answers; never reached, the handler above answers first.
    route(app, described, off)
    return
  }
  const limit = rateLimit(handle, {
    group: `${options.service}:dev-login`,
    limit: settings.rateLimit,
    clientAddress: options.clientAddress,
  })
  route(
    app,
    described,
    (c, input) =>
      handle(
        c,
        Effect.gen(function* () {
          const { session, user } = yield* options.signIn(yield* input.body)
          const token = yield* SignIn.startSession(readSessionCookie(c, options.service, publicOrigin), session)
          return { token, user }
        }),
        ({ token, user }) => {
          setSessionCookie(c, options.service, publicOrigin, token)
          return c.json({ user })
        },
      ),
    [limit],
  )
}

/** Ends the request's session, if it has one; logging out twice, or without a session, is not an error. */
export const endSession = (
  c: Context,
  service: string,
  publicOrigin: string | undefined,
): Effect.Effect<void, StoreUnavailable, Sessions.Sessions> => {
  const token = readSessionCookie(c, service, publicOrigin)
  if (token === undefined) return Effect.void
  return Sessions.Sessions.use((sessions) => sessions.revoke(token))
}

/**
 * `POST /api/auth/logout`, the same on both services: ends the session server-side and clears the cookie. A
 * request with an `Authorization` header is refused before anything is read or changed.
 */
export const mountLogout = (
  app: Hono,
  options: {
    readonly handle: Handle<Sessions.Sessions>
    readonly service: string
    readonly publicOrigin: string | undefined
    readonly bearer: BearerCredential
  },
) =>
  route(app, logoutEndpoint(options.bearer), (c) =>
    header(c, "Authorization") !== undefined
      ? errorResponse(c, logoutRefused(options.bearer))
      : options.handle(c, endSession(c, options.service, options.publicOrigin), () => {
          clearSessionCookie(c, options.service, options.publicOrigin)
          return c.json({ ok: true })
        }),
  )
