/**
 * The OpenID Connect routes both services share (seed 001 §4 "Auth and instance"): the sign-in start, the
 * provider's callback and the back-channel logout endpoint. What a sign-in means to a service (an account for
 * secrets, groups for schemas) is the `onSignedIn` callback's business; everything else is here, once.
 *
 * Decisions, written down because the seeds leave them open:
 * - `returnTo` is accepted only as a path on this site: it must start with one `/`, and neither it nor its
 *   percent-decoded forms may start with `//` or contain a backslash or a control character (browsers read `\`
 *   as `/` and drop tabs and newlines). Anything else is refused with 400 rather than silently replaced, so a
 *   crafted link fails visibly. Absent means `/`.
 * - The pending sign-in (state, nonce, PKCE verifier, returnTo) is kept server-side in the Cache port for ten
 *   minutes under the SHA-256 of `state`, and taken at most once (an atomic counter guards against a racing
 *   second callback). The browser also gets a short cookie holding `state`, and the callback must come with it:
 *   that binds the sign-in to the browser that started it, so a callback URL pushed to someone else (login
 *   CSRF) signs nobody in. An unknown or already used `state` answers `expired`: whether it timed out or never
 *   existed cannot be told apart, and the remedy is the same.
 * - Failures answer `{ error }` through the error table (expired, rejected and email 400, refused 403, linking
 *   409, off 404, unavailable 503), or, when the web app is served, redirect to `/sign-in?error=<reason>`; the
 *   start redirects likewise when sign-in is off or the provider is down. A refused `returnTo` is always 400.
 * - Every sign-in creates a new session (a new random cookie value) and ends the one the browser had.
 * - Back-channel logout: a verified token's `jti` is remembered (Cache `increment`, keyed by the SHA-256 of
 *   this service's origin, the issuer and the `jti`) for longer than a token is accepted, and a second use is
 *   refused with 400. With `sid`, the sessions of that provider session end (and of that `sub` when present);
 *   without, every session of that issuer and subject. 200 with an empty body on success (the spec's wording);
 *   a token that cannot be checked because the provider or a store is down answers 503, so the provider may
 *   retry (the `jti` is forgotten again when ending the sessions failed).
 */
import {
  BadRequest,
  Cache,
  Hasher,
  Identity,
  NotFound,
  Sessions,
  type Settings,
  type StoreUnavailable,
} from "@coffer/kernel"
import { type AccountLinkRequired, type Accounts, signIn } from "@coffer/secrets"
import { Effect, Option, Schema } from "effect"
import type { Context, Hono } from "hono"
import { deleteCookie, getCookie, setCookie } from "hono/cookie"
import { type HttpError, toErrorResponse } from "../errors.js"
import type { Handle } from "../runtime.js"
import { readSessionCookie, setSessionCookie } from "./cookie.js"
import { limitAttempt, type RateLimitOptions, rateLimit } from "./rateLimit.js"

/** The services the routes need besides the optional Identity. */
export type OidcServices = Sessions.Sessions | Cache.Cache

/** The `/sign-in?error=` values of seed 001 §4. */
export type SignInFailure = Identity.IdentityError["reason"] | "linking" | "off"

export interface OidcRoutesOptions<E, R> {
  readonly handle: Handle<OidcServices | R>
  /**
   * This service's public origin: the redirect URI is built on it and the cookies follow its scheme. The host
   * always supplies one; without, the request's own origin stands in.
   */
  readonly publicOrigin: string | undefined
  /** Whether a web app is served at this origin: failures then redirect to `/sign-in?error=<reason>`. */
  readonly webApp: boolean
  /** Default `/api/auth`. */
  readonly basePath?: string | undefined
  /**
   * What a sign-in means to this service: the session to create (account, e-mail, groups). Issuer, subject and
   * the provider's `sid` are filled in from the verified identity whatever this returns.
   */
  readonly onSignedIn: (signedIn: Identity.SignedIn) => Effect.Effect<Sessions.NewSession, E, R>
  /**
   * Per-client limits (DESIGN.md "Rate limits"): every request to the start and the callback counts (group
   * `<service>:oidc`); on the back-channel path only refused tokens count (`<service>:backchannel-logout`), so
   * a provider delivering many valid logouts is never limited into failing them. Absent: no limits.
   */
  readonly rateLimit?: (Omit<RateLimitOptions, "group"> & { readonly service: string }) | undefined
}

/** How long a started sign-in may take at the provider. */
export const PENDING_SIGN_IN_TTL_MS = 10 * 60 * 1000
/**
 * How long a logout token's `jti` is remembered. It must outlast the adapter's acceptance window (five minutes
 * after `iat`, plus clock skew on both sides), after which a replay is refused as too old anyway.
 */
export const LOGOUT_REPLAY_WINDOW_MS = 15 * 60 * 1000
/** Longer than any honest `returnTo` or `state`; longer input is refused before any work. */
const MAX_RETURN_TO_LENGTH = 2048
const MAX_STATE_LENGTH = 512

const STATE_COOKIE = "coffer_oidc_state"

const isSecure = (origin: string) => origin.startsWith("https://")
const stateCookieName = (origin: string) => (isSecure(origin) ? `__Host-${STATE_COOKIE}` : STATE_COOKIE)

const PendingSignIn = Schema.Struct({
  state: Schema.String,
  nonce: Schema.String,
  codeVerifier: Schema.String,
  returnTo: Schema.String,
})
const decodePending = Schema.decodeUnknownOption(Schema.fromJsonString(PendingSignIn))

// Controls, DEL, and the C1 range, any of which a browser may drop or a log may misprint.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

const pathIsLocal = (value: string) =>
  value.startsWith("/") && !value.startsWith("//") && !value.includes("\\") && !CONTROL.test(value)

/**
 * `raw` when it is a path on this site, else `undefined`; absent or empty means `/`. Each percent-decoded form
 * must pass too, since a later hop (a proxy, the web app's router) may decode once more before redirecting.
 */
export const safeReturnTo = (raw: string | undefined): string | undefined => {
  if (raw === undefined || raw === "") return "/"
  if (raw.length > MAX_RETURN_TO_LENGTH) return undefined
  let form = raw
  for (let round = 0; ; round++) {
    if (!pathIsLocal(form)) return undefined
    let decoded: string
    try {
      decoded = decodeURIComponent(form)
    } catch {
      return undefined
    }
    if (decoded === form) break
    // Encoded over and over: no path of this site is, so nothing is lost by refusing.
    if (round === 3) return undefined
    form = decoded
  }
  // Last guard: resolved against any origin, it must stay there.
  const base = "http://coffer.invalid"
  return new URL(raw, base).origin === base ? raw : undefined
}

const off = () => new NotFound({ message: "Sign-in with OpenID Connect is not configured" })

/** The Identity service, or `off` (404) when the host has configured none. */
const identityService = Effect.flatMap(Effect.serviceOption(Identity.Identity), (identity) =>
  Option.isSome(identity) ? Effect.succeed(identity.value) : Effect.fail(off()),
)

const identityError = (reason: Identity.IdentityError["reason"], message: string) =>
  new Identity.IdentityError({ reason, message })

/** The `/sign-in?error=` reason for a failure; other errors by what their status means. */
export const signInFailure = (error: HttpError): SignInFailure => {
  if (error._tag === "IdentityError") return error.reason
  switch (toErrorResponse(error).status) {
    case 404:
      return "off"
    case 409:
      return "linking"
    case 503:
      return "unavailable"
    case 403:
      return "refused"
    default:
      return "rejected"
  }
}

/** The provider's session id for this sign-in, for back-channel logout by `sid`. */
const providerSessionId = (claims: Readonly<Record<string, unknown>>) =>
  typeof claims.sid === "string" && claims.sid !== "" ? claims.sid : undefined

/** The e-mail of a sign-in; the adapter refuses sign-ins without one, this keeps the rule where it is used. */
const emailOf = (signedIn: Identity.SignedIn) =>
  signedIn.email === undefined || signedIn.email === ""
    ? Effect.fail(identityError("email", "The identity provider gave no e-mail address"))
    : Effect.succeed(signedIn.email)

/**
 * Secrets (seed 001 §1): the account of this identity, created at its first sign-in; `AccountLinkRequired`
 * (409, `linking`) while an older account holds the e-mail and no operator has linked them.
 */
export const secretsSignedIn = (
  signedIn: Identity.SignedIn,
): Effect.Effect<
  Sessions.NewSession,
  Identity.IdentityError | AccountLinkRequired | StoreUnavailable,
  Accounts.Accounts
> =>
  Effect.gen(function* () {
    const email = yield* emailOf(signedIn)
    const user = yield* signIn({ issuer: signedIn.issuer, subject: signedIn.subject, email })
    return { userId: user.id, email: user.email, groups: [] } satisfies Sessions.NewSession
  })

/**
 * The groups of the roles claim: a list of strings, or one string for providers that send a single group bare.
 * Anything else counts as no groups, which only ever narrows what the person may do.
 */
export const groupsOf = (claims: Readonly<Record<string, unknown>>, claim: string): ReadonlyArray<string> => {
  const value = claims[claim]
  if (typeof value === "string") return value === "" ? [] : [value]
  return Array.isArray(value) ? value.filter((group): group is string => typeof group === "string") : []
}

/**
 * Schemas (seed 000 §5): the groups of `OIDC_ROLES_CLAIM` at sign-in, recorded on the session (rule 3: a change
 * of groups takes effect at the next sign-in). The schemas service has no accounts: the person is the subject.
 */
export const schemasSignedIn =
  (rolesClaim: () => string) =>
  (signedIn: Identity.SignedIn): Effect.Effect<Sessions.NewSession, Identity.IdentityError> =>
    Effect.map(emailOf(signedIn), (email) => ({
      userId: signedIn.subject,
      email,
      groups: groupsOf(signedIn.claims, rolesClaim()),
    }))

/**
 * SHA-256 from the kernel's Web Crypto Hasher, provided here rather than asked of the runtime: the mount then
 * needs only what every service's auth routes already have (sessions and the cache).
 */
const withHasher = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, Hasher.layer)

/** How a route answers once its work is done: a redirect, usually, with cookies set on the way. */
type Reply = (c: Context) => Response

/**
 * The provider's form-encoded logout POST (OIDC Back-Channel Logout 1.0). It carries no cookie, so the
 * JSON-only and same-origin write rules do not apply to it; both apps exempt it through `createBaseApp`.
 */
export const BACKCHANNEL_LOGOUT_PATH = "/api/auth/backchannel-logout"

export const mountOidcRoutes = <E extends HttpError, R>(app: Hono, options: OidcRoutesOptions<E, R>): void => {
  const { handle } = options
  const base = options.basePath ?? "/api/auth"
  const originOf = (c: Context) => options.publicOrigin ?? new URL(c.req.url).origin
  const redirectUriOf = (c: Context) => `${originOf(c)}${base}/oauth2/callback/oidc`
  // Cookies follow the configured origin, as the session cookie does everywhere else (cookie.ts).
  const secureCookies = isSecure(options.publicOrigin ?? "")
  const stateCookie = stateCookieName(options.publicOrigin ?? "")

  const pendingKey = (state: string) =>
    Effect.map(
      Hasher.Hasher.use((hasher) => hasher.sha256Hex(state)),
      (hash) => `oidc:pending:${hash}`,
    )

  /**
   * Runs a sign-in step. In web-app mode a failure lands on the sign-in page (outages are logged, since no
   * error response carries them to the log); otherwise, and for errors `keepJson` selects, it answers JSON
   * through the error table.
   */
  const runSignIn = (
    c: Context,
    work: Effect.Effect<Reply, HttpError, OidcServices | Hasher.Hasher | R>,
    keepJson: (error: HttpError) => boolean = () => false,
  ) => {
    const effect = withHasher(work)
    if (!options.webApp) return handle(c, effect, (reply) => reply(c))
    const redirected = effect.pipe(
      Effect.catch((error): Effect.Effect<Reply, HttpError> => {
        if (keepJson(error)) return Effect.fail(error)
        const reason = signInFailure(error)
        const reply: Reply = (context) => context.redirect(`/sign-in?error=${reason}`, 302)
        return reason === "unavailable"
          ? Effect.as(Effect.logWarning(`Sign-in failed: ${error._tag}: ${error.message}`), reply)
          : Effect.succeed(reply)
      }),
    )
    return handle(c, redirected, (reply) => reply(c))
  }

  if (options.rateLimit !== undefined) {
    const signInLimit = rateLimit(handle, { ...options.rateLimit, group: `${options.rateLimit.service}:oidc` })
    app.use(`${base}/oidc/start`, signInLimit)
    app.use(`${base}/oauth2/callback/oidc`, signInLimit)
  }
  const limits = options.rateLimit

  app.get(`${base}/oidc/start`, (c) => {
    const values = c.req.queries("returnTo") ?? []
    const returnTo = values.length > 1 ? undefined : safeReturnTo(values[0])
    const start = Effect.gen(function* () {
      const identity = yield* identityService
      if (returnTo === undefined) {
        return yield* new BadRequest({ message: "returnTo must be a single path on this site" })
      }
      const { url, pending } = yield* identity.start({ redirectUri: redirectUriOf(c), returnTo })
      const cache = yield* Cache.Cache
      yield* cache.set(yield* pendingKey(pending.state), JSON.stringify(pending), PENDING_SIGN_IN_TTL_MS)
      const reply: Reply = (context) => {
        // Binds the sign-in to this browser: the callback must bring the same state back in this cookie.
        setCookie(context, stateCookie, pending.state, {
          httpOnly: true,
          sameSite: "Lax",
          path: "/",
          secure: secureCookies,
          maxAge: PENDING_SIGN_IN_TTL_MS / 1000,
        })
        return context.redirect(url, 302)
      }
      return reply
    })
    return runSignIn(c, start, (error) => error._tag === "BadRequest")
  })

  /** The pending sign-in of `state`, taken once: a second callback with the same state finds nothing. */
  const takePending = Effect.fnUntraced(function* (state: string) {
    const cache = yield* Cache.Cache
    const key = yield* pendingKey(state)
    const stored = yield* cache.get(key)
    if (stored === undefined) return yield* identityError("expired", "The sign-in has expired; start again")
    if ((yield* cache.increment(`${key}:taken`, PENDING_SIGN_IN_TTL_MS)) > 1) {
      return yield* identityError("expired", "The sign-in has already been completed; start again")
    }
    yield* cache.delete(key)
    const pending = decodePending(stored)
    if (Option.isNone(pending)) return yield* identityError("rejected", "The pending sign-in is unreadable")
    return pending.value
  })

  app.get(`${base}/oauth2/callback/oidc`, (c) => {
    const state = c.req.query("state")
    const { publicOrigin } = options
    const boundState = getCookie(c, stateCookie)
    const callback = Effect.gen(function* () {
      const identity = yield* identityService
      if (state === undefined || state === "" || state.length > MAX_STATE_LENGTH) {
        return yield* identityError("rejected", "The callback carries no valid state")
      }
      const hasher = yield* Hasher.Hasher
      if (boundState === undefined || !hasher.equals(boundState, state)) {
        return yield* identityError("rejected", "The sign-in was started in another browser")
      }
      const pending = yield* takePending(state)
      const signedIn = yield* identity.finish({ redirectUri: redirectUriOf(c), callbackUrl: c.req.url, pending })
      const session = yield* options.onSignedIn(signedIn)
      const sessions = yield* Sessions.Sessions
      const previous = readSessionCookie(c, publicOrigin)
      if (previous !== undefined) yield* sessions.revoke(previous)
      const { token } = yield* sessions.create({
        ...session,
        issuer: signedIn.issuer,
        subject: signedIn.subject,
        providerSessionId: providerSessionId(signedIn.claims),
      })
      const reply: Reply = (context) => {
        setSessionCookie(context, publicOrigin, token)
        return context.redirect(pending.returnTo, 302)
      }
      return reply
    })
    // The state cookie has served its purpose whatever the outcome.
    deleteCookie(c, stateCookie, { path: "/", secure: secureCookies })
    return runSignIn(c, callback)
  })

  app.post(`${base}/backchannel-logout`, (c) => {
    const logout = Effect.gen(function* () {
      const identity = yield* identityService
      const form = yield* Effect.tryPromise({
        try: () => c.req.parseBody(),
        catch: () => new BadRequest({ message: "The body must be a form with logout_token" }),
      })
      const token = form.logout_token
      if (typeof token !== "string" || token === "") {
        return yield* new BadRequest({ message: "The form has no logout_token" })
      }
      const verified = yield* identity.verifyLogoutToken(token)
      const hasher = yield* Hasher.Hasher
      const cache = yield* Cache.Cache
      const replayKey = `oidc:logout:${yield* hasher.sha256Hex(`${originOf(c)}\n${verified.issuer}\n${verified.tokenId}`)}`
      if ((yield* cache.increment(replayKey, LOGOUT_REPLAY_WINDOW_MS)) > 1) {
        return yield* new BadRequest({ message: "This logout token has already been used" })
      }
      const sessions = yield* Sessions.Sessions
      yield* sessions
        .revokeWhere({
          issuer: verified.issuer,
          subject: verified.subject,
          providerSessionId: verified.sessionId,
        })
        // Forget the token so that the provider's retry is not taken for a replay.
        .pipe(Effect.onError(() => Effect.ignore(cache.delete(replayKey))))
    })
    const limited =
      limits === undefined
        ? withHasher(logout)
        : withHasher(logout).pipe(
            // Only refusals count: a token that could not be checked (503) is not the caller's doing.
            Effect.tapError((error) =>
              error._tag === "BadRequest" || (error._tag === "IdentityError" && error.reason !== "unavailable")
                ? limitAttempt(c, { ...limits, group: `${limits.service}:backchannel-logout` })
                : Effect.void,
            ),
          )
    return handle(c, limited, () => c.body(null, 200))
  })
}

/** What the services' auth mounts hand over (`SecretsAuthOptions`, `SchemasAuthOptions`). */
export interface ServiceOidcOptions<R> {
  readonly handle: Handle<OidcServices | R>
  readonly settings: Settings.Settings
  readonly publicOrigin: string | undefined
  readonly clientAddress?: ((c: Context) => string | undefined) | undefined
  /** Whether a web app is served at this origin; this host serves none. */
  readonly webApp?: boolean | undefined
}

const limitsOf = (service: string, options: Pick<ServiceOidcOptions<never>, "settings" | "clientAddress">) => ({
  service,
  limit: options.settings.rateLimit,
  clientAddress: options.clientAddress,
})

/** The OIDC routes of the secrets service: a sign-in is the account of the identity (`secretsSignedIn`). */
export const mountSecretsOidc = (app: Hono, options: ServiceOidcOptions<Accounts.Accounts>): void =>
  mountOidcRoutes(app, {
    handle: options.handle,
    publicOrigin: options.publicOrigin,
    webApp: options.webApp ?? false,
    onSignedIn: secretsSignedIn,
    rateLimit: limitsOf("secrets", options),
  })

/** The OIDC routes of the schemas service: a sign-in records the roles claim's groups (`schemasSignedIn`). */
export const mountSchemasOidc = (
  app: Hono,
  options: ServiceOidcOptions<never> & { readonly roles: () => Settings.Roles },
): void =>
  mountOidcRoutes(app, {
    handle: options.handle,
    publicOrigin: options.publicOrigin,
    webApp: options.webApp ?? false,
    onSignedIn: schemasSignedIn(() => options.roles().claim),
    rateLimit: limitsOf("schemas", options),
  })
