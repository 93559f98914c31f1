/**
 * The Identity port on openid-client and jose: sign-in through an OpenID Connect provider with the
 * authorization code flow (PKCE S256, state, nonce), and OIDC Back-Channel Logout 1.0 token checks.
 *
 * The libraries are loaded when a provider is built, so a host without OIDC never holds them (about 4 MB of its
 * resident memory). Discovery is lazy: nothing is fetched until the first use, and a failed discovery is
 * forgotten, so a provider that is down when the host starts only makes sign-ins answer `unavailable` until it is
 * back; the host never fails to start over it. Every failure of the provider or of a token becomes an
 * `IdentityError` in one place (`classify`), and no message carries a code, a token or the client secret.
 *
 * Decisions (see README.md): claims are the ID token's over the UserInfo response's; a sign-in without an
 * e-mail, or with `email_verified: false`, fails `email`; a logout token is accepted for at most
 * `LOGOUT_TOKEN_MAX_AGE_SECONDS` after its `iat` (its `exp`, when present, is also checked), so the caller's
 * replay memory only has to last that long plus the clock skew.
 */
import { Identity } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import type * as jose from "jose"
import type * as client from "openid-client"

export interface Options {
  /** The issuer identifier; its `/.well-known/openid-configuration` is read on first use. */
  readonly issuer: string
  readonly clientId: string
  /** Absent for a public client, which then relies on PKCE alone. */
  readonly clientSecret?: Redacted.Redacted<string> | undefined
  /** Display name for the sign-in button. */
  readonly name: string
  /** Scopes asked for; default `openid email profile`. `openid` is always added. */
  readonly scopes?: ReadonlyArray<string> | undefined
  /** Seconds one request to the provider may take. Default 10. */
  readonly timeoutSeconds?: number | undefined
}

/** How long after its `iat` a logout token is accepted (OIDC Back-Channel Logout 1.0 §2.6 asks for a recent one). */
export const LOGOUT_TOKEN_MAX_AGE_SECONDS = 300
/** Tolerated clock difference with the provider, in seconds, for `iat` and `exp`. */
export const CLOCK_SKEW_SECONDS = 60
/**
 * How long a caller must remember a logout token's `jti` to refuse every replay: past this, the token is refused
 * as too old anyway.
 */
export const LOGOUT_TOKEN_REPLAY_WINDOW_SECONDS = LOGOUT_TOKEN_MAX_AGE_SECONDS + 2 * CLOCK_SKEW_SECONDS

export const BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout"

/** Longer than any real logout token; a longer form field is refused before any parsing. */
const MAX_LOGOUT_TOKEN_LENGTH = 16_384

/** JWS algorithms with a public key: a logout token signed with a shared secret (`HS*`) or none is refused. */
const ASYMMETRIC = /^(RS|PS|ES)(256|384|512)$|^ES256K$|^EdDSA$|^Ed25519$|^Ed448$/

/** Marks a failure to reach the provider (connection refused, reset, timed out, JWKS not served). */
class ProviderUnreachable extends Error {}

/** What discovery yields, kept for the life of the layer once it succeeded. */
interface Discovered {
  readonly config: client.Configuration
  readonly issuer: string
  readonly keys: jose.JWTVerifyGetKey
  readonly algorithms: ReadonlyArray<string>
}

type Stage = "discovery" | "sign-in" | "logout"

const loadLibraries = async () => {
  const [client, jose] = await Promise.all([import("openid-client"), import("jose")])
  return { client, jose }
}
type Libraries = Awaited<ReturnType<typeof loadLibraries>>

const failure = (reason: Identity.IdentityError["reason"], message: string) =>
  new Identity.IdentityError({ reason, message })

const causes = function* (error: unknown): Generator<unknown> {
  let current: unknown = error
  for (let depth = 0; depth < 8 && current !== undefined; depth++) {
    yield current
    current = current instanceof Error ? current.cause : undefined
  }
}

/** A fetch `Response`, by its shape: the one a library hands on may come from another realm than this `Response`. */
const isAnswer = (value: unknown): value is { readonly status: number; readonly url: string } =>
  Predicate.hasProperty(value, "status") &&
  Predicate.hasProperty(value, "url") &&
  typeof value.status === "number" &&
  typeof value.url === "string"

/**
 * The messages of an error and its causes, for the operator's log: the library's and the network's own words
 * ("connect ECONNREFUSED …", the `issuer` that does not match). Discovery sends no code, token or secret to carry.
 */
const reasonsOf = (error: unknown): string => {
  const messages: Array<string> = []
  for (const cause of causes(error)) {
    // openid-client gives the provider's answer itself as the cause of an unexpected status.
    const text =
      cause instanceof Error
        ? cause.message
        : isAnswer(cause)
          ? `HTTP ${cause.status} from ${cause.url}`
          : String(cause)
    if (text !== "" && !messages.includes(text)) messages.push(text)
  }
  return messages.join(": ")
}

const unreachable = (error: unknown) => [...causes(error)].some((cause) => cause instanceof ProviderUnreachable)

/**
 * THE one place where a failure becomes an `IdentityError`. Messages name what failed, never a value that
 * travelled in the request (codes, tokens) and never the client secret.
 */
const classify = ({ client, jose }: Libraries, stage: Stage, error: unknown): Identity.IdentityError => {
  if (error instanceof Identity.IdentityError) return error
  if (stage === "discovery") return failure("unavailable", "The identity provider could not be discovered")
  if (unreachable(error)) return failure("unavailable", "The identity provider could not be reached")
  if (error instanceof client.AuthorizationResponseError) {
    return error.error === "access_denied"
      ? failure("refused", "The sign-in was refused at the identity provider")
      : failure("rejected", `The identity provider answered the sign-in with an error (${error.error})`)
  }
  if (error instanceof client.ResponseBodyError) {
    return error.status >= 500 || error.error === "temporarily_unavailable" || error.error === "server_error"
      ? failure("unavailable", "The identity provider failed to answer")
      : failure("rejected", `The identity provider refused the sign-in (${error.error})`)
  }
  if (error instanceof client.ClientError) {
    // A provider answering with a broken page (HTML 502, a timeout) is down, not refusing.
    if (error.code === "OAUTH_RESPONSE_IS_NOT_CONFORM" || error.code === "OAUTH_RESPONSE_IS_NOT_JSON") {
      return failure("unavailable", "The identity provider failed to answer")
    }
    if (error.code === "OAUTH_TIMEOUT") return failure("unavailable", "The identity provider did not answer in time")
    return failure("rejected", `The sign-in response is invalid: ${error.message}`)
  }
  if (error instanceof jose.errors.JOSEError) {
    return failure("rejected", `Invalid logout token: ${error.message}`)
  }
  return failure("rejected", stage === "logout" ? "Invalid logout token" : "The sign-in response is invalid")
}

/** Runs a step of `stage` with its failures classified. */
const attempts = (libraries: Libraries) => ({
  attempt: <A>(stage: Stage, run: () => Promise<A>): Effect.Effect<A, Identity.IdentityError> =>
    Effect.tryPromise({ try: run, catch: (error) => classify(libraries, stage, error) }),
  attemptSync: <A>(stage: Stage, run: () => A): Effect.Effect<A, Identity.IdentityError> =>
    Effect.try({ try: run, catch: (error) => classify(libraries, stage, error) }),
})

const isLoopback = (url: URL) =>
  url.hostname === "localhost" || url.hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(url.hostname)

/** A fetch whose network failures are recognisable as such whatever the library wraps them in. */
const fetchMarkingOutages: client.CustomFetch = (url, init) =>
  fetch(url, init as RequestInit).catch((cause: unknown) => {
    throw new ProviderUnreachable("request to the identity provider failed", { cause })
  })

const rejected = (message: string) => Effect.fail(failure("rejected", `Invalid logout token: ${message}`))

/** The `typ` header, when present, must be `logout+jwt` (RFC 7515 §4.1.9: an `application/` prefix may be left out). */
const typeIsLogout = (typ: unknown) =>
  typ === undefined || (Predicate.isString(typ) && typ.toLowerCase().replace(/^application\//, "") === "logout+jwt")

/** Builds the service; nothing is fetched yet. Fails only when the issuer is not an acceptable URL. */
export const make: (options: Options) => Effect.Effect<Identity.Identity["Service"], Identity.IdentityError> =
  Effect.fnUntraced(function* (options: Options) {
    const issuerUrl = yield* Effect.try({
      try: () => new URL(options.issuer),
      catch: () => failure("unavailable", "The issuer is not a URL"),
    })
    const insecure = issuerUrl.protocol === "http:"
    if (insecure ? !isLoopback(issuerUrl) : issuerUrl.protocol !== "https:") {
      return yield* failure("unavailable", "The issuer must be an https URL (plain http only on a loopback address)")
    }
    const libraries = yield* Effect.promise(loadLibraries)
    const { client, jose } = libraries
    const { attempt, attemptSync } = attempts(libraries)
    const timeout = options.timeoutSeconds ?? 10
    const scope = [...new Set(["openid", ...(options.scopes ?? ["email", "profile"])])].join(" ")
    const secret = options.clientSecret === undefined ? undefined : Redacted.value(options.clientSecret)

    const discoverNow = async (): Promise<Discovered> => {
      const config = await client.discovery(
        issuerUrl,
        options.clientId,
        secret === undefined ? undefined : { client_secret: secret },
        secret === undefined ? client.None() : client.ClientSecretBasic(secret),
        {
          [client.customFetch]: fetchMarkingOutages,
          timeout,
          ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
        },
      )
      config.timeout = timeout
      const metadata = config.serverMetadata()
      if (metadata.jwks_uri === undefined) throw new Error("the provider publishes no jwks_uri")
      const remote = jose.createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: timeout * 1000 })
      // Failing to fetch keys is an outage, not a bad token: mark it so `classify` can tell them apart.
      const keys: jose.JWTVerifyGetKey = async (header, token) => {
        try {
          return await remote(header, token)
        } catch (error) {
          const fetchFailed =
            !(error instanceof jose.errors.JOSEError) ||
            error.code === "ERR_JOSE_GENERIC" ||
            error.code === "ERR_JWKS_TIMEOUT"
          throw fetchFailed
            ? new ProviderUnreachable("the provider's keys could not be fetched", { cause: error })
            : error
        }
      }
      const advertised = metadata.id_token_signing_alg_values_supported ?? ["RS256"]
      const algorithms = advertised.filter((alg) => ASYMMETRIC.test(alg))
      return { config, issuer: metadata.issuer, keys, algorithms: algorithms.length > 0 ? algorithms : ["RS256"] }
    }

    // One discovery in flight at a time; a failed one is dropped so that the next use tries again.
    let discovering: Promise<Discovered> | undefined
    // Why discovery failed goes to the operator's log, not to the client (whose message is the same for a provider
    // that is down and an `OIDC_ISSUER` that names no provider, such as one with a trailing slash too many).
    const discovered = Effect.tryPromise({
      try: () => {
        discovering ??= discoverNow().catch((error: unknown) => {
          discovering = undefined
          throw error
        })
        return discovering
      },
      catch: (error) => error,
    }).pipe(
      Effect.catch((error) =>
        Effect.andThen(
          Effect.logWarning(`OIDC: discovery of the issuer ${issuerUrl.href} failed: ${reasonsOf(error)}`),
          Effect.fail(classify(libraries, "discovery", error)),
        ),
      ),
    )

    const start: Identity.Identity["Service"]["start"] = Effect.fnUntraced(function* (input) {
      const { config } = yield* discovered
      const codeVerifier = client.randomPKCECodeVerifier()
      const state = client.randomState()
      const nonce = client.randomNonce()
      const codeChallenge = yield* attempt("sign-in", () => client.calculatePKCECodeChallenge(codeVerifier))
      const url = yield* attemptSync("sign-in", () =>
        client.buildAuthorizationUrl(config, {
          redirect_uri: input.redirectUri,
          response_type: "code",
          scope,
          state,
          nonce,
          code_challenge: codeChallenge,
          code_challenge_method: "S256",
        }),
      )
      return { url: url.href, pending: { state, nonce, codeVerifier, returnTo: input.returnTo } }
    })

    const finish: Identity.Identity["Service"]["finish"] = Effect.fnUntraced(function* (input) {
      const { config } = yield* discovered
      // The parameters come from the callback as received; the address is the redirect URI sent at the start, so
      // the token request names exactly that one whatever host or proxy the callback came through.
      const current = yield* attemptSync("sign-in", () => {
        const url = new URL(input.redirectUri)
        url.search = new URL(input.callbackUrl).search
        return url
      })
      const tokens = yield* attempt("sign-in", () =>
        client.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: input.pending.codeVerifier,
          expectedState: input.pending.state,
          expectedNonce: input.pending.nonce,
          idTokenExpected: true,
        }),
      )
      const idToken = tokens.claims()
      if (idToken === undefined) return yield* failure("rejected", "The identity provider returned no ID token")
      // Many providers put e-mail and groups only in UserInfo; the signed ID token wins where both speak.
      const userInfo =
        config.serverMetadata().userinfo_endpoint === undefined
          ? {}
          : yield* attempt("sign-in", () => client.fetchUserInfo(config, tokens.access_token, idToken.sub))
      const claims: Record<string, unknown> = { ...userInfo, ...idToken }
      const email = claims.email
      if (!Predicate.isString(email) || email.trim() === "") {
        return yield* failure("email", "The identity provider gave no e-mail address")
      }
      if (claims.email_verified === false) {
        return yield* failure("email", "The identity provider has not verified the e-mail address")
      }
      return { issuer: idToken.iss, subject: idToken.sub, email, claims }
    })

    const verifyLogoutToken: Identity.Identity["Service"]["verifyLogoutToken"] = Effect.fnUntraced(function* (token) {
      if (token.length === 0 || token.length > MAX_LOGOUT_TOKEN_LENGTH) return yield* rejected("malformed")
      const { issuer, keys, algorithms } = yield* discovered
      const { payload, protectedHeader } = yield* attempt("logout", () =>
        jose.jwtVerify(token, keys, {
          issuer,
          audience: options.clientId,
          algorithms: [...algorithms],
          // Requires `iat`, refuses one in the future beyond the skew, and bounds the token's age.
          maxTokenAge: LOGOUT_TOKEN_MAX_AGE_SECONDS,
          clockTolerance: CLOCK_SKEW_SECONDS,
          requiredClaims: ["iat", "jti", "events"],
        }),
      )
      if (!typeIsLogout(protectedHeader.typ)) return yield* rejected('the "typ" header is not logout+jwt')
      const events = payload.events
      if (!Predicate.isObject(events) || Array.isArray(events)) return yield* rejected('"events" is not an object')
      const event = (events as Record<string, unknown>)[BACKCHANNEL_LOGOUT_EVENT]
      if (!Predicate.isObject(event) || Array.isArray(event)) {
        return yield* rejected('"events" lacks the back-channel logout event object')
      }
      if ("nonce" in payload) return yield* rejected('a logout token must not contain "nonce"')
      const { sub, sid, jti } = payload as Record<string, unknown>
      if (sub !== undefined && (!Predicate.isString(sub) || sub === "")) return yield* rejected('"sub" is not a string')
      if (sid !== undefined && (!Predicate.isString(sid) || sid === "")) return yield* rejected('"sid" is not a string')
      if (sub === undefined && sid === undefined) return yield* rejected('neither "sub" nor "sid" is present')
      if (!Predicate.isString(jti) || jti === "") return yield* rejected('"jti" is not a string')
      return { issuer, subject: sub, sessionId: sid, tokenId: jti }
    })

    return {
      name: options.name,
      issuer: options.issuer,
      start,
      finish,
      verifyLogoutToken,
    } satisfies Identity.Identity["Service"]
  })

/** The Identity port for one provider. Fails to build only on an unusable issuer URL, never on an outage. */
export const layer = (options: Options): Layer.Layer<Identity.Identity, Identity.IdentityError> =>
  Layer.effect(Identity.Identity, make(options))
