/**
 * The secrets service's own sign-in routes (seed 001 §4 "Auth and instance"), besides the OIDC ones:
 * - `POST /api/auth/dev-login` `{ email }`: only with `COFFER_ENV=development` (404 otherwise). Signs in as the
 *   development identity of that address (`signIn`, issuer `urn:coffer:development`), so the account exists
 *   and is matched like any other; answers `{ user: { id, email } }` and sets the session cookie. Rate-limited
 *   per client (group `secrets:dev-login`).
 * - `POST /api/auth/logout`: ends the session server-side and clears the cookie; `{ ok: true }`, also when
 *   there was no session (the outcome the caller wants holds either way). With an API key: 403, nothing ended.
 * - `GET /api/auth/me`: `{ user: { id, email } }`, or 401. Asked with an API key, `secrets/me.ts` answers instead.
 *
 * Mount these before any route with a path parameter under `/api`, so that none of those can shadow them.
 */
import type { Cache, Hasher, Random, Sessions } from "@coffer/kernel"
import {
  type Accounts,
  developmentIdentity,
  developmentSignIn,
  IsoTime,
  KeyScope,
  Role,
  secretsSignedIn,
} from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Context, Hono } from "hono"
import type { ServiceSettings } from "../app/settings.js"
import { SESSION_OR_BEARER } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import type { Handle } from "../runtime.js"
import { Email, mountDevLogin, mountLogout } from "./devLogin.js"
import { mountServiceOidc } from "./oidc.js"
import { requireSession } from "./session.js"

export const ME_PATH = "/api/auth/me"

/** What these routes need from the runtime. */
export type SecretsAuthServices = Sessions.Sessions | Accounts.Accounts | Cache.Cache | Hasher.Hasher | Random.Random

export interface SecretsAuthOptions {
  readonly handle: Handle<SecretsAuthServices>
  readonly settings: ServiceSettings
  /** The secrets service's public origin: the cookie's name and `Secure` follow its scheme. */
  readonly publicOrigin: string | undefined
  /** `AppOptions.clientAddress`, for the per-client rate limit. */
  readonly clientAddress?: ((c: Context) => string | undefined) | undefined
  /** Whether the web app is served here: failed sign-ins then redirect to `/sign-in?error=<reason>`. */
  readonly webApp?: boolean | undefined
}

const DevLoginBody = Schema.Struct({ email: Email })

/** Who is signed in (seed 001 §2 "user"). */
export const User = Schema.Struct({ id: Schema.String, email: Schema.String }).annotate({ identifier: "User" })

export const Me = endpoint({
  method: "GET",
  path: ME_PATH,
  summary: "Who is signed in",
  description:
    "With an API key, also the key: `apiKey: { id, scope, holderRole, expiresAt, project: { id, slug, name } }`. " +
    "`holderRole` is the key holder's current role in the project, " +
    "which the key never exceeds: a `write` key whose holder is now a `read` member can only read.",
  tag: "Sign-in",
  security: SESSION_OR_BEARER,
  responses: {
    200: Schema.Struct({
      user: User,
      apiKey: Schema.optionalKey(
        Schema.Struct({
          id: Schema.String,
          scope: KeyScope,
          holderRole: Role,
          expiresAt: Schema.NullOr(IsoTime),
          project: Schema.Struct({ id: Schema.String, slug: Schema.String, name: Schema.String }),
        }),
      ),
    }),
  },
  errors: [404],
})

export const mountSecretsAuth = (app: Hono, options: SecretsAuthOptions): void => {
  const { handle, publicOrigin } = options

  mountDevLogin(app, {
    ...options,
    service: "secrets",
    body: DevLoginBody,
    user: User,
    signIn: ({ email }) =>
      Effect.map(developmentSignIn(email), (user) => ({
        session: { userId: user.id, email: user.email, groups: [], ...developmentIdentity(email) },
        user: { id: user.id, email: user.email },
      })),
  })
  mountLogout(app, {
    handle,
    service: "secrets",
    publicOrigin,
    bearer: { name: "API key", revokedWhen: "it is deleted (DELETE /api/api-keys/{id}, or the API keys page)" },
  })

  route(app, Me, (c) =>
    handle(
      c,
      Effect.map(requireSession(c, "secrets", publicOrigin), (session) => ({
        user: { id: session.userId, email: session.email },
      })),
    ),
  )
  mountServiceOidc(app, { ...options, service: "secrets", onSignedIn: secretsSignedIn })
}
