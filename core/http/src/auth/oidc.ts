/**
 * The OpenID Connect routes both services share (seed 001 §4 "Auth and instance"): the sign-in start, the
 * provider's callback and the back-channel logout endpoint. The flow itself is the kernel's `SignIn` use cases
 * (pending sign-ins, take-once state, replay refusal, session rotation); what a sign-in means to a service is
 * the `onSignedIn` step that service's package provides (`secretsSignedIn`, `schemasSignedIn`), which its auth
 * module passes in (`mountServiceOidc`). Here is what is
 * HTTP's: the `returnTo` check (`returnTo.ts`), the cookies, the redirects and the rate limits.
 *
 * - The start sets a short cookie holding `state`; the callback hands it to `SignIn.finish`, which refuses a
 *   callback without it (a callback URL pushed to another browser signs nobody in). The cookie is deleted at
 *   the callback whatever the outcome.
 * - Failures are answered by `answerSignInFailure` (`signInFailure.ts`). A refused `returnTo` is always 400.
 * - Back-channel logout answers 200 with an empty body on success (the spec's wording); a token that cannot be
 *   checked because the provider or a store is down answers 503, so the provider may retry.
 */
import { BadRequest, type Cache, type Hasher, type Sessions, SignIn } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Context, Hono } from "hono"
import { deleteCookie, setCookie } from "hono/cookie"
import type { ServiceSettings } from "../app/settings.js"
import type { HttpError } from "../errors.js"
import { PUBLIC } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import type { Handle } from "../runtime.js"
import { cookieName, readCookie, readSessionCookie, secureCookie, setSessionCookie } from "./cookie.js"
import { limitAttempt, type RateLimitOptions } from "./rateLimit.js"
import { safeReturnTo } from "./returnTo.js"
import { answerSignInFailure, type Reply } from "./signInFailure.js"

/** The services the routes need besides the optional Identity. */
export type OidcServices = Sessions.Sessions | Cache.Cache | Hasher.Hasher

export interface OidcRoutesOptions<E, R> {
  readonly handle: Handle<OidcServices | R>
  /** Which service mounts the routes: it names their cookies (`cookie.ts`) and rate-limit groups. */
  readonly service: string
  /**
   * This service's public origin: the redirect URI is built on it and the cookies follow its scheme. The host
   * always supplies one; without, the request's own origin stands in.
   */
  readonly publicOrigin: string | undefined
  /** Whether a web app is served at this origin: failures then redirect to `/sign-in?error=<reason>`. */
  readonly webApp: boolean
  /** Default `/api/auth`. */
  readonly basePath?: string | undefined
  /** What a sign-in means to this service (`SignIn.SignedInStep`). */
  readonly onSignedIn: SignIn.SignedInStep<E, OidcServices | R>
  /**
   * Per-client limits (DESIGN.md "Rate limits"): every request to the start and the callback counts (group
   * `<service>:oidc`); on the back-channel path only refused tokens count (`<service>:backchannel-logout`), so
   * a provider delivering many valid logouts is never limited into failing them. Absent: no limits.
   */
  readonly rateLimit?: Omit<RateLimitOptions, "group"> | undefined
}

/**
 * The provider's form-encoded logout POST (OIDC Back-Channel Logout 1.0). It carries no cookie, so the
 * JSON-only and same-origin write rules do not apply to it; both apps exempt it through `createBaseApp`.
 */
export const BACKCHANNEL_LOGOUT_PATH = "/api/auth/backchannel-logout"

const TAG = "Sign-in"
const SIGN_IN_FAILURES =
  "When the web app is served, a failed sign-in redirects to `/sign-in?error=<reason>` (expired, rejected, " +
  "refused, email, linking, off, unavailable) instead of answering `{ error }`."

/** The OIDC routes as the document describes them, under `base`. */
const oidcEndpoints = (base: string) => ({
  start: endpoint({
    method: "GET",
    path: `${base}/oidc/start`,
    summary: "Start signing in with the identity provider",
    description: `Redirects to the provider; 404 when sign-in is not configured. ${SIGN_IN_FAILURES}`,
    tag: TAG,
    security: PUBLIC,
    query: {
      returnTo: { schema: Schema.String, description: "A path on this site to return to (default `/`)" },
    },
    responses: { 302: { description: "To the provider", headers: { Location: "The provider's sign-in page" } } },
    errors: [400, 403, 404, 429, 503],
  }),
  callback: endpoint({
    method: "GET",
    path: `${base}/oauth2/callback/oidc`,
    summary: "The identity provider's redirect back",
    description: `Starts the session and redirects to \`returnTo\`. ${SIGN_IN_FAILURES}`,
    tag: TAG,
    security: PUBLIC,
    responses: {
      302: { description: "Signed in; to `returnTo`", headers: { Location: "returnTo", "Set-Cookie": "The session" } },
    },
    errors: [400, 403, 404, 409, 429, 503],
  }),
  backchannel: endpoint({
    method: "POST",
    path: `${base}/backchannel-logout`,
    summary: "Back-channel logout (OIDC Back-Channel Logout 1.0)",
    description: "Ends the sessions of the person (or the provider session) the logout token names.",
    tag: TAG,
    security: PUBLIC,
    form: { logout_token: "The provider's signed logout token (a JWT)" },
    responses: { 200: { description: "Logged out; no body" } },
    errors: [400, 404, 429, 503],
  }),
})

/** Refused logout tokens count against the client; a token that could not be checked (503) is not its doing. */
const refusedLogout = (error: HttpError) =>
  error._tag === "BadRequest" || (error._tag === "IdentityError" && error.reason !== "unavailable")

export const mountOidcRoutes = <E extends HttpError, R>(app: Hono, options: OidcRoutesOptions<E, R>): void => {
  const { handle, service, publicOrigin, webApp } = options
  const base = options.basePath ?? "/api/auth"
  const originOf = (c: Context) => publicOrigin ?? new URL(c.req.url).origin
  const redirectUriOf = (c: Context) => `${originOf(c)}${base}/oauth2/callback/oidc`
  // Cookies follow the configured origin and the request's scheme, as the session cookie does (cookie.ts).
  const stateCookie = cookieName(service, "oidc_state", publicOrigin)

  const limits = options.rateLimit
  // Counted inside the routes rather than by the `rateLimit` middleware, so that a limited sign-in is answered as
  // any failed one is: with a web app, a redirect to the sign-in page, not a JSON body in the browser's tab.
  const countSignIn = (c: Context) =>
    limits === undefined ? Effect.void : limitAttempt(c, { ...limits, group: `${service}:oidc` })
  const described = oidcEndpoints(base)

  route(app, described.start, (c) => {
    // Given twice, it was refused before the handler (`../request/query.ts`).
    const returnTo = safeReturnTo(c.req.query("returnTo"))
    const start = Effect.gen(function* () {
      // Sign-in being off is said before anything about the request.
      yield* SignIn.identity
      yield* countSignIn(c)
      if (returnTo === undefined) {
        return yield* new BadRequest({ message: "returnTo must be a single path on this site" })
      }
      const { url, state } = yield* SignIn.start({ redirectUri: redirectUriOf(c), returnTo })
      const reply: Reply = (context) => {
        // Binds the sign-in to this browser: the callback must bring the same state back in this cookie.
        setCookie(context, stateCookie, state, {
          httpOnly: true,
          sameSite: "Lax",
          path: "/",
          secure: secureCookie(context, publicOrigin),
          maxAge: SignIn.PENDING_SIGN_IN_TTL_MS / 1000,
        })
        return context.redirect(url, 302)
      }
      return reply
    })
    const answered = answerSignInFailure(start, { webApp, keepJson: (error) => error._tag === "BadRequest" })
    return handle(c, answered, (reply) => reply(c))
  })

  route(app, described.callback, (c) => {
    const input: SignIn.FinishInput = {
      state: c.req.query("state"),
      boundState: readCookie(c, stateCookie),
      redirectUri: redirectUriOf(c),
      callbackUrl: c.req.url,
      previousSession: readSessionCookie(c, service, publicOrigin),
    }
    const callback = Effect.map(
      Effect.andThen(countSignIn(c), SignIn.finish(input, options.onSignedIn)),
      ({ token, returnTo }): Reply =>
        (context) => {
          setSessionCookie(context, service, publicOrigin, token)
          return context.redirect(returnTo, 302)
        },
    )
    // The state cookie has served its purpose whatever the outcome.
    deleteCookie(c, stateCookie, { path: "/", secure: secureCookie(c, publicOrigin) })
    return handle(c, answerSignInFailure(callback, { webApp }), (reply) => reply(c))
  })

  route(app, described.backchannel, (c) => {
    const logout = Effect.gen(function* () {
      // Sign-in being off is said before anything about the request.
      yield* SignIn.identity
      const form = yield* Effect.tryPromise({
        try: () => c.req.parseBody(),
        catch: () => new BadRequest({ message: "The body must be a form with logout_token" }),
      })
      const token = form.logout_token
      if (typeof token !== "string" || token === "") {
        return yield* new BadRequest({ message: "The form has no logout_token" })
      }
      yield* SignIn.backChannelLogout({ logoutToken: token, audience: originOf(c) })
    })
    const limited =
      limits === undefined
        ? logout
        : logout.pipe(
            Effect.tapError((error) =>
              refusedLogout(error)
                ? limitAttempt(c, { ...limits, group: `${service}:backchannel-logout` })
                : Effect.void,
            ),
          )
    return handle(c, limited, () => c.body(null, 200))
  })
}

/** What the services' auth mounts hand over (`SecretsAuthOptions`, `SchemasAuthOptions`). */
export interface ServiceOidcOptions<R> {
  readonly handle: Handle<OidcServices | R>
  readonly settings: ServiceSettings
  readonly publicOrigin: string | undefined
  readonly clientAddress?: ((c: Context) => string | undefined) | undefined
  /** Whether a web app is served at this origin (`AppOptions.web`): failures then redirect to the sign-in page. */
  readonly webApp?: boolean | undefined
}

/**
 * The OIDC routes of one service, with its rate-limit groups (`<service>:oidc`, `<service>:backchannel-logout`)
 * and its signed-in step: `secretsSignedIn` (`@coffer/secrets`), `schemasSignedIn` (`@coffer/schemas`).
 */
export const mountServiceOidc = <E extends HttpError, R>(
  app: Hono,
  options: ServiceOidcOptions<R> & {
    readonly service: string
    readonly onSignedIn: SignIn.SignedInStep<E, OidcServices | R>
  },
): void =>
  mountOidcRoutes(app, {
    handle: options.handle,
    service: options.service,
    publicOrigin: options.publicOrigin,
    webApp: options.webApp ?? false,
    onSignedIn: options.onSignedIn,
    rateLimit: { limit: options.settings.rateLimit, clientAddress: options.clientAddress },
  })
