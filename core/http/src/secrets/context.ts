/**
 * What every secrets route shares: the runtime bridge, the settings, and how a request becomes an `Actor`.
 *
 * A request names its caller one of two ways (seed 001 §5): `Authorization: Bearer <API key>`, or the session
 * cookie. When the header is present it decides alone, so a script's key is never silently replaced by a
 * browser's cookie. Failed credentials (an unknown, malformed or expired key, a cookie naming no live session)
 * count against the client's rate limit (DESIGN.md "Rate limits"), so guessing is slowed without ever limiting
 * a caller whose credentials work.
 */
import {
  BadRequest,
  type Cache,
  type Cipher,
  type Clock,
  type Hasher,
  type Random,
  type Readiness,
  Sessions,
  type Settings,
  type StoreUnavailable,
  type TooManyRequests,
  Unauthorized,
  type UnsupportedMediaType,
} from "@coffer/kernel"
import { type Accounts, type Actor, authenticateApiKey, type SecretStore } from "@coffer/secrets"
import { Effect, Schema } from "effect"
import type { Context } from "hono"
import { readSessionCookie } from "../auth/cookie.js"
import { limitAttempt } from "../auth/rateLimit.js"
import { decodeJson } from "../middleware/jsonBody.js"
import type { Handle } from "../runtime.js"

/** Everything the secrets routes need from the runtime. */
export type SecretsRouteServices =
  | Readiness.Readiness
  | SecretStore.SecretStore
  | Accounts.Accounts
  | Sessions.Sessions
  | Cache.Cache
  | Cipher.Cipher
  | Clock.Clock
  | Random.Random
  | Hasher.Hasher

export interface SecretsRoutes {
  readonly handle: Handle<SecretsRouteServices>
  readonly settings: Settings.Settings
  /** The secrets service's public origin: invite links and the session cookie's name follow it. */
  readonly publicOrigin: string | undefined
  /** `AppOptions.clientAddress`: for the audit log's `ipAddress` and the per-client rate limit. */
  readonly clientAddress?: ((c: Context) => string | undefined) | undefined
}

/** The rate-limit group of failed credential checks. */
export const CREDENTIALS_GROUP = "secrets:credentials"

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i

type CallerServices =
  | SecretStore.SecretStore
  | Accounts.Accounts
  | Sessions.Sessions
  | Cache.Cache
  | Clock.Clock
  | Hasher.Hasher

/** The caller of this request, or 401; failed credentials count against the client's rate limit. */
export const callerOf = (
  c: Context,
  routes: SecretsRoutes,
): Effect.Effect<Actor, Unauthorized | TooManyRequests | StoreUnavailable, CallerServices> => {
  const ipAddress = routes.clientAddress?.(c) ?? null
  const failed = (error: Unauthorized) =>
    limitAttempt(c, {
      group: CREDENTIALS_GROUP,
      limit: routes.settings.rateLimit,
      clientAddress: routes.clientAddress,
    }).pipe(Effect.andThen(Effect.fail(error)))
  const authorization = c.req.header("Authorization")
  if (authorization !== undefined) {
    const token = BEARER.exec(authorization)?.[1] ?? ""
    return authenticateApiKey(token, ipAddress).pipe(Effect.catchTag("Unauthorized", failed))
  }
  const notSignedIn = new Unauthorized({ message: "Not signed in" })
  const cookie = readSessionCookie(c, routes.publicOrigin)
  if (cookie === undefined) return Effect.fail(notSignedIn)
  return Effect.flatMap(
    Sessions.Sessions.use((sessions) => sessions.get(cookie)),
    (session): Effect.Effect<Actor, Unauthorized | TooManyRequests | StoreUnavailable, Cache.Cache> =>
      session === undefined
        ? failed(notSignedIn)
        : Effect.succeed({ kind: "session", userId: session.userId, email: session.email, ipAddress }),
  )
}

/** Runs a use case as the request's caller and answers through the error table. */
export const withCaller = <A, E, R extends SecretsRouteServices>(
  c: Context,
  routes: SecretsRoutes,
  use: (caller: Actor) => Effect.Effect<A, E, R>,
): Effect.Effect<A, E | Unauthorized | TooManyRequests | StoreUnavailable, R | CallerServices> =>
  Effect.flatMap(callerOf(c, routes), use)

/**
 * A JSON body that may be left out entirely (`POST /invites`, `POST /api-keys/:id/rotate`): no body at all reads
 * as `{}`; a body that is there must be JSON and match the schema like any other.
 */
export const optionalJson = <A>(
  c: Context,
  schema: Schema.Decoder<A>,
): Effect.Effect<A, BadRequest | UnsupportedMediaType> => {
  const length = c.req.header("Content-Length")
  const framed = c.req.header("Transfer-Encoding") !== undefined || (length !== undefined && length !== "0")
  if (framed || c.req.header("Content-Type") !== undefined) return decodeJson(c, schema)
  return Schema.decodeUnknownEffect(schema)({}).pipe(
    Effect.mapError((error) => new BadRequest({ message: `Invalid request body: ${error.message}` })),
  )
}

/** The public origin for links, or the request's own when none is configured (an app built without a host). */
export const originFor = (c: Context, routes: SecretsRoutes): string => routes.publicOrigin ?? new URL(c.req.url).origin
