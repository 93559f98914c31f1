/**
 * Signing in, as use cases both services share (seed 001 §4, seed 000 §5): the OpenID Connect flow (start,
 * finish, back-channel logout) and the session rotation that every sign-in, development login included, ends
 * with. Only ports are used (Identity, Sessions, Cache, Hasher), so the flow runs without any HTTP framework;
 * the HTTP edge keeps what is HTTP's: cookies, redirects and the checks of `returnTo`. What a sign-in means to
 * a service (an account, groups) is the `SignedInStep` that service passes in.
 *
 * Decisions, written down because the seeds leave them open:
 * - The pending sign-in (state, nonce, PKCE verifier, returnTo) is kept server-side in the Cache port for ten
 *   minutes under the SHA-256 of `state`, and taken at most once (an atomic counter guards against a racing
 *   second callback). The browser holds `state` too (the edge keeps it in a cookie) and the callback must bring
 *   the same value back: that binds the sign-in to the browser that started it, so a callback URL pushed to
 *   someone else (login CSRF) signs nobody in. An unknown or already used `state` is `expired`: whether it
 *   timed out or never existed cannot be told apart, and the remedy is the same.
 * - Every sign-in creates a new session (a new random token) and ends the one the browser had, so that a value
 *   planted before sign-in (session fixation) never becomes a signed-in session.
 * - Back-channel logout: a verified token's `jti` is remembered (Cache `increment`, keyed by the SHA-256 of the
 *   receiving service's origin, the issuer and the `jti`) for longer than a token is accepted, and a second use
 *   is refused. With `sid`, the sessions of that provider session end (and of that `sub` when present);
 *   without, every session of that issuer and subject. When ending the sessions fails, the `jti` is forgotten
 *   again, so that the provider's retry is not taken for a replay.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Cache from "./Cache.js"
import { BadRequest } from "./errors.js"
import * as Hasher from "./Hasher.js"
import * as Identity from "./Identity.js"
import * as Sessions from "./Sessions.js"
import type { StoreUnavailable } from "./StoreUnavailable.js"

/** How long a started sign-in may take at the provider. */
export const PENDING_SIGN_IN_TTL_MS = 10 * 60 * 1000
/**
 * How long a logout token's `jti` is remembered. It must outlast the adapter's acceptance window (five minutes
 * after `iat`, plus clock skew on both sides), after which a replay is refused as too old anyway.
 */
export const LOGOUT_REPLAY_WINDOW_MS = 15 * 60 * 1000
/** Longer than any honest `state`; longer input is refused before any work. */
const MAX_STATE_LENGTH = 512

/**
 * What a sign-in means to a service: the session to create (account, e-mail, groups). Issuer, subject and the
 * provider's `sid` are filled in from the verified identity whatever this returns.
 */
export type SignedInStep<E, R> = (signedIn: Identity.SignedIn) => Effect.Effect<Sessions.NewSession, E, R>

/** The host configured no identity provider (seed 001 §4: the OIDC routes answer 404). */
export class SignInOff extends Schema.TaggedError<SignInOff>()("SignInOff", {}) {
  override get message(): string {
    return "Sign-in with OpenID Connect is not configured"
  }
}

export const off = () => new SignInOff()

/** The Identity service, or `off` (404) when the host has configured none. */
export const identity: Effect.Effect<Identity.Identity["Service"], SignInOff> = Effect.flatMap(
  Effect.serviceOption(Identity.Identity),
  (service) => (Option.isSome(service) ? Effect.succeed(service.value) : Effect.fail(off())),
)

const identityError = (reason: Identity.IdentityError["reason"], message: string) =>
  new Identity.IdentityError({ reason, message })

/**
 * Control characters and unpaired surrogates: no address has one. A NUL would reach the store, where Postgres refuses
 * it; an unpaired surrogate cannot be stored as UTF-8 (SQLite keeps bytes that read back as another address, Postgres
 * U+FFFD, which another address may then share), as the development login's `Email` refuses it too.
 */
const CONTROL = /[\p{Cc}\p{Cs}]/u

/** The e-mail of a sign-in; the adapter refuses sign-ins without one, this keeps the rule where it is used. */
export const emailOf = (signedIn: Identity.SignedIn): Effect.Effect<string, Identity.IdentityError> =>
  signedIn.email === undefined || signedIn.email === ""
    ? Effect.fail(identityError("email", "The identity provider gave no e-mail address"))
    : CONTROL.test(signedIn.email)
      ? Effect.fail(
          identityError(
            "email",
            "The identity provider gave an e-mail address with control characters or unpaired surrogates",
          ),
        )
      : Effect.succeed(signedIn.email)

/** The provider's session id for this sign-in, for back-channel logout by `sid`. */
const providerSessionId = (claims: Readonly<Record<string, unknown>>) =>
  typeof claims.sid === "string" && claims.sid !== "" ? claims.sid : undefined

/**
 * A new session for a sign-in, ending `previous` (the token the browser had, if any): the rotation both the
 * OIDC callback and the development login end with. Answers the new session's token.
 */
export const startSession = Effect.fn("SignIn.startSession")(function* (
  previous: string | undefined,
  session: Sessions.NewSession,
) {
  const sessions = yield* Sessions.Sessions
  if (previous !== undefined) yield* sessions.revoke(previous)
  const { token } = yield* sessions.create(session)
  return token
})

const PendingSignIn = Schema.Struct({
  state: Schema.String,
  nonce: Schema.String,
  codeVerifier: Schema.String,
  returnTo: Schema.String,
})
const decodePending = Schema.decodeUnknownOption(Schema.fromJsonString(PendingSignIn))

const pendingKey = (state: string) =>
  Effect.map(
    Hasher.Hasher.use((hasher) => hasher.sha256Hex(state)),
    (hash) => `oidc:pending:${hash}`,
  )

/**
 * Starts a sign-in at the provider: the pending sign-in is kept for the callback, and the caller gets the
 * provider's URL to send the browser to and the `state` the browser must bring back.
 */
export const start = Effect.fn("SignIn.start")(function* (input: {
  readonly redirectUri: string
  readonly returnTo: string
}) {
  const provider = yield* identity
  const { url, pending } = yield* provider.start(input)
  const cache = yield* Cache.Cache
  yield* cache.set(yield* pendingKey(pending.state), JSON.stringify(pending), PENDING_SIGN_IN_TTL_MS)
  return { url, state: pending.state }
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

export interface FinishInput {
  /** The `state` of the callback's query. */
  readonly state: string | undefined
  /** The `state` the browser kept since the start. */
  readonly boundState: string | undefined
  readonly redirectUri: string
  /** The callback's full URL, as the provider redirected to it. */
  readonly callbackUrl: string
  /** The session token the browser had, ended by the sign-in. */
  readonly previousSession: string | undefined
}

export type FinishError<E> = SignInOff | Identity.IdentityError | StoreUnavailable | E

/** The verified identity of a callback and where the person wanted to go. */
const verifyCallback = Effect.fnUntraced(function* (input: FinishInput) {
  const provider = yield* identity
  const { state, boundState } = input
  if (state === undefined || state === "" || state.length > MAX_STATE_LENGTH) {
    return yield* identityError("rejected", "The callback carries no valid state")
  }
  const hasher = yield* Hasher.Hasher
  if (boundState === undefined || !hasher.equals(boundState, state)) {
    return yield* identityError("rejected", "The sign-in was started in another browser")
  }
  const pending = yield* takePending(state)
  const signedIn = yield* provider.finish({ redirectUri: input.redirectUri, callbackUrl: input.callbackUrl, pending })
  return { signedIn, returnTo: pending.returnTo }
})

/**
 * Finishes a sign-in at the provider's callback: checks the state, takes the pending sign-in, verifies the
 * provider's answer, runs the service's `signedInStep` and rotates the session. Answers the new session's token
 * and the `returnTo` of the start.
 */
export const finish = <E, R>(
  input: FinishInput,
  signedInStep: SignedInStep<E, R>,
): Effect.Effect<
  { readonly token: string; readonly returnTo: string },
  FinishError<E>,
  R | Sessions.Sessions | Cache.Cache | Hasher.Hasher
> =>
  Effect.gen(function* () {
    const { signedIn, returnTo } = yield* verifyCallback(input)
    const session = yield* signedInStep(signedIn)
    const token = yield* startSession(input.previousSession, {
      ...session,
      issuer: signedIn.issuer,
      subject: signedIn.subject,
      providerSessionId: providerSessionId(signedIn.claims),
    })
    return { token, returnTo }
  }).pipe(Effect.withSpan("SignIn.finish"))

/**
 * The provider's back-channel logout (OIDC Back-Channel Logout 1.0): verifies `logoutToken`, refuses a replay
 * with `BadRequest`, and ends the sessions it names. `audience` is the receiving service's origin, so that two
 * services sharing one cache each accept the provider's token once.
 */
export const backChannelLogout = Effect.fn("SignIn.backChannelLogout")(function* (input: {
  readonly logoutToken: string
  readonly audience: string
}) {
  const provider = yield* identity
  const verified = yield* provider.verifyLogoutToken(input.logoutToken)
  const hasher = yield* Hasher.Hasher
  const cache = yield* Cache.Cache
  const replayKey = `oidc:logout:${yield* hasher.sha256Hex(`${input.audience}\n${verified.issuer}\n${verified.tokenId}`)}`
  if ((yield* cache.increment(replayKey, LOGOUT_REPLAY_WINDOW_MS)) > 1) {
    return yield* new BadRequest({ message: "This logout token has already been used" })
  }
  const sessions = yield* Sessions.Sessions
  yield* sessions
    .revokeWhere({ issuer: verified.issuer, subject: verified.subject, providerSessionId: verified.sessionId })
    // Forget the token so that the provider's retry is not taken for a replay.
    .pipe(Effect.onError(() => Effect.ignore(cache.delete(replayKey))))
})
