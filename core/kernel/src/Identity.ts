/**
 * The Identity port: signing people in through an OpenID Connect provider (authorization code + PKCE,
 * state and nonce) and checking back-channel logout tokens. People are matched by issuer and subject,
 * never by e-mail. Implemented by `adapters/oidc`.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

export class IdentityError extends Schema.TaggedError<IdentityError>()("IdentityError", {
  /** Maps to the `/sign-in?error=<reason>` values of seed 001. */
  reason: Schema.Literals(["expired", "rejected", "refused", "email", "unavailable"]),
  message: Schema.String,
}) {}

/** What must survive the round trip through the provider (kept server-side or in a sealed cookie). */
export interface PendingSignIn {
  readonly state: string
  readonly nonce: string
  readonly codeVerifier: string
  readonly returnTo: string
}

export interface SignedIn {
  readonly issuer: string
  readonly subject: string
  readonly email: string | undefined
  readonly claims: Readonly<Record<string, unknown>>
}

export interface LogoutToken {
  readonly issuer: string
  readonly subject: string | undefined
  readonly sessionId: string | undefined
  readonly tokenId: string
}

export class Identity extends Context.Service<
  Identity,
  {
    /** Display name for the sign-in button. */
    readonly name: string
    readonly issuer: string
    readonly start: (input: {
      readonly redirectUri: string
      readonly returnTo: string
    }) => Effect.Effect<{ readonly url: string; readonly pending: PendingSignIn }, IdentityError>
    readonly finish: (input: {
      readonly redirectUri: string
      readonly callbackUrl: string
      readonly pending: PendingSignIn
    }) => Effect.Effect<SignedIn, IdentityError>
    /** Full OIDC Back-Channel Logout 1.0 validation, except replay, which the caller checks with `tokenId`. */
    readonly verifyLogoutToken: (token: string) => Effect.Effect<LogoutToken, IdentityError>
  }
>()("@coffer/kernel/Identity") {}
