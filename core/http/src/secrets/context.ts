/**
 * What every secrets route shares: the runtime bridge, the settings, and how a request becomes an `Actor`.
 *
 * A request names its actor one of two ways (seed 001 §5): `Authorization: Bearer <API key>`, or the session
 * cookie. When the header is present it decides alone, so a script's key is never silently replaced by a
 * browser's cookie. Failed credentials (an unknown, malformed or expired key, a cookie naming no live session)
 * count against the client's rate limit (DESIGN.md "Rate limits"), so guessing is slowed without ever limiting
 * an actor whose credentials work.
 */
import {
  type Cache,
  type Cipher,
  type Clock,
  Forbidden,
  type Hasher,
  type MasterKeyCheck,
  MethodNotAllowed,
  type Random,
  type Readiness,
  type Sessions,
} from "@coffer/kernel"
import { type Accounts, type Actor, type ApiKeyChecks, authenticateApiKey, type SecretStore } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import type { Context } from "hono"
import type { ServiceSettings } from "../app/settings.js"
import { type CredentialError, credentialsGroup, credentialsOf } from "../auth/credentials.js"
import { notSignedIn } from "../auth/session.js"
import { addAnswerHeader } from "../middleware/presetHeaders.js"
import { header } from "../request/header.js"
import type { Handle } from "../runtime.js"

/** Everything the secrets routes need from the runtime. */
export type SecretsRouteServices =
  | ApiKeyChecks.KeyChecks
  | Readiness.Readiness
  | SecretStore.SecretStore
  | Accounts.Accounts
  | Sessions.Sessions
  | Cache.Cache
  | Cipher.Cipher
  | MasterKeyCheck.KeyCanary
  | Clock.Clock
  | Random.Random
  | Hasher.Hasher

export interface SecretsRoutes {
  readonly handle: Handle<SecretsRouteServices>
  readonly settings: ServiceSettings
  /** The secrets service's public origin: invite links and the session cookie's name follow it. */
  readonly publicOrigin: string | undefined
  /** `AppOptions.clientAddress`: for the audit log's `ipAddress` and the per-client rate limit. */
  readonly clientAddress?: ((c: Context) => string | undefined) | undefined
  /** The methods a path answers (`BaseApp.allowedMethods`), for the `Allow` of a 405 a route gives itself. */
  readonly allowedMethods: (path: string) => ReadonlyArray<string>
}

/** The rate-limit group of failed credential checks. */
export const CREDENTIALS_GROUP = credentialsGroup("secrets")

type ActorServices =
  | ApiKeyChecks.KeyChecks
  | SecretStore.SecretStore
  | Accounts.Accounts
  | Sessions.Sessions
  | Cache.Cache
  | Clock.Clock
  | Hasher.Hasher
  | Random.Random

/**
 * Every answer to a request made with an API key that expires says when (`API_KEY_EXPIRES_HEADER`), as GitHub's API
 * answers `github-authentication-token-expiration`: a CI job's key would otherwise stop working one day with a 401,
 * and the command line warns while there is time to rotate it.
 */
export const API_KEY_EXPIRES_HEADER = "Coffer-Api-Key-Expires"

const tellExpiry = (c: Context, actor: Actor) =>
  Effect.sync(() => {
    if (actor.kind === "apiKey" && actor.expiresAt !== null)
      addAnswerHeader(c, API_KEY_EXPIRES_HEADER, new Date(actor.expiresAt).toISOString())
  })

/** The actor of this request, or 401; failed credentials count against the client's rate limit. */
export const actorOf = (c: Context, routes: SecretsRoutes): Effect.Effect<Actor, CredentialError, ActorServices> => {
  const ipAddress = routes.clientAddress?.(c) ?? null
  return credentialsOf(c, {
    service: "secrets",
    limit: routes.settings.rateLimit,
    clientAddress: routes.clientAddress,
    publicOrigin: routes.publicOrigin,
    // Said as the schemas service says it: "Invalid API key" sent someone whose key was fine, but written as
    // `Authorization: cfk_…` or `Token cfk_…`, to replace a key that was never the problem.
    malformed: "Authorization must be Bearer <API key>",
    anonymous: notSignedIn,
    byToken: (token) => Effect.tap(authenticateApiKey(token, ipAddress), (actor) => tellExpiry(c, actor)),
    bySession: (session) =>
      Effect.succeed<Actor>({ kind: "session", userId: session.userId, email: session.email, ipAddress }),
  })
}

/** Runs a use case as the request's actor and answers through the error table. */
export const withActor = <A, E, R extends SecretsRouteServices>(
  c: Context,
  routes: SecretsRoutes,
  use: (actor: Actor) => Effect.Effect<A, E, R>,
): Effect.Effect<A, E | CredentialError, R | ActorServices> => Effect.flatMap(actorOf(c, routes), use)

/**
 * `withActor` for the routes that answer secret values (a secret, an old version, the exports). Each such read is
 * audited, so `HEAD` is refused (405): it would be logged as a read that disclosed nothing, or, unlogged, tell a
 * value's length. SameSite=Lax still sends the session cookie on a top-level GET from another site, so a link
 * elsewhere could download a person's secrets and log the export in their name: a cookie-authenticated request
 * that the browser marks `Sec-Fetch-Site: cross-site` is refused with 403 before anything is read or audited. So is
 * one marked `same-site` (another origin of this site: a sibling subdomain, another port of `localhost`), to which
 * Lax sends the cookie on every request, images included, unless its `Origin` is one the service lists (the public
 * origin, `CORS_ORIGIN`): a listed dashboard's fetch reads on, a link, image or unlisted script there does not. API
 * keys are unaffected: no browser attaches one on its own.
 */
const fromElsewhere = (c: Context, routes: SecretsRoutes): boolean => {
  const site = header(c, "sec-fetch-site")
  if (site === "cross-site") return true
  if (site !== "same-site") return false
  const origin = header(c, "origin")
  return origin === undefined || (origin !== routes.publicOrigin && !routes.settings.corsOrigins.includes(origin))
}

export const withValueReader = <A, E, R extends SecretsRouteServices>(
  c: Context,
  routes: SecretsRoutes,
  use: (actor: Actor) => Effect.Effect<A, E, R>,
): Effect.Effect<A, E | MethodNotAllowed | Forbidden | CredentialError, R | ActorServices> =>
  c.req.method === "HEAD"
    ? Effect.fail(
        new MethodNotAllowed({
          message: "Secret values are read with GET only: every read is audited",
          // The router's list, as every other 405 and OPTIONS names it: the route refuses HEAD, so it is left out.
          allow: routes.allowedMethods(c.req.path),
        }),
      )
    : withActor(
        c,
        routes,
        (actor): Effect.Effect<A, E | Forbidden, R> =>
          actor.kind === "session" && fromElsewhere(c, routes)
            ? Effect.fail(new Forbidden({ message: "Secret values cannot be read by a request from another site" }))
            : use(actor),
      )

/** The path parameters of the secrets routes, as the OpenAPI document describes them (seed 001 §4). */
export const PROJECT_PARAM = { slug: "The project's slug" }
export const ENVIRONMENT_PARAMS = { ...PROJECT_PARAM, env: "The environment's name" }
export const SECRET_PARAMS = { ...ENVIRONMENT_PARAMS, key: "The secret's key" }

/** The public origin for links, or the request's own when none is configured (an app built without a host). */
export const originFor = (c: Context, routes: SecretsRoutes): string => routes.publicOrigin ?? new URL(c.req.url).origin
