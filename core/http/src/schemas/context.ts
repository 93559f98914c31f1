/**
 * What every schemas route shares: the runtime bridge, the settings, how a request becomes an `Actor` (through
 * `auth/credentials.ts`), and how path segments are read. Bodies are read by `middleware/jsonBody.ts`.
 *
 * Credentials (seed 000 §5). A request names its caller one of two ways: `Authorization: Bearer <API token>`, or
 * the session cookie. When the header is present it decides alone, so a service's token is never silently
 * replaced by a browser's cookie (and a write carrying a token is refused even if a cookie rides along).
 * - No credential: 401. An unknown or revoked token, or a header that is not a bearer token: 401. Failed
 *   credentials count against the client's rate limit (DESIGN.md "Rate limits").
 * - The token check goes through the cache and fails closed: with the cache down it is 503, never "allowed".
 * - Dashboard endpoints (`/api/_ui/v1/*`) do not accept tokens (rule 2): a valid token there is 403, as a write
 *   with a token is (the caller is known, the credential is not allowed here); an invalid one is still 401.
 * - A session becomes a `Person` whose permissions come from the roles settings as they are for this request
 *   (`roles()` is read once per request: rule 1).
 */
import {
  type Cache,
  type Clock,
  Forbidden,
  type Hasher,
  type Random,
  type Sessions,
  Unauthorized,
} from "@coffer/kernel"
import { Access, Permissions, type SchemaStore, Tokens } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import type { Context } from "hono"
import type { ServiceSettings } from "../app/settings.js"
import { type CredentialError, credentialsGroup, credentialsOf } from "../auth/credentials.js"
import type { Handle } from "../runtime.js"

/** Everything the schemas routes need from the runtime. */
export type SchemasRouteServices =
  | SchemaStore
  | Sessions.Sessions
  | Cache.Cache
  | Clock.Clock
  | Random.Random
  | Hasher.Hasher
  | Tokens.RevokedTokens

export interface SchemasRoutes {
  readonly handle: Handle<SchemasRouteServices>
  readonly settings: ServiceSettings
  /** The schemas service's public origin: the session cookie's name follows its scheme. */
  readonly publicOrigin: string | undefined
  /** The roles settings as they are now (`AppOptions.roles`). */
  readonly roles: () => Permissions.Roles
  /** `AppOptions.clientAddress`, for the per-client rate limit on failed credentials. */
  readonly clientAddress?: ((c: Context) => string | undefined) | undefined
}

/** The rate-limit group of failed credential checks. */
export const CREDENTIALS_GROUP = credentialsGroup("schemas")

/** The prefix of the dashboard endpoints (seed 000 §9 rule 2). */
export const DASHBOARD_PREFIX = "/api/_ui/v1"

export const notAuthenticated = () => new Unauthorized({ message: "Authentication required" })

type ActorServices = SchemaStore | Sessions.Sessions | Cache.Cache | Clock.Clock | Hasher.Hasher | Tokens.RevokedTokens

export type ActorError = CredentialError | Forbidden

/** The actor of this request, or 401 (403 for a token on a dashboard endpoint). */
export const actorOf = (c: Context, routes: SchemasRoutes): Effect.Effect<Access.Actor, ActorError, ActorServices> => {
  const dashboard = c.req.path === DASHBOARD_PREFIX || c.req.path.startsWith(`${DASHBOARD_PREFIX}/`)
  return credentialsOf(c, {
    service: "schemas",
    limit: routes.settings.rateLimit,
    clientAddress: routes.clientAddress,
    publicOrigin: routes.publicOrigin,
    malformed: "Authorization must be Bearer <API token>",
    anonymous: notAuthenticated,
    // A valid token is still refused on a dashboard endpoint; elsewhere the check's answer is the actor as it is.
    byToken: (token) =>
      dashboard
        ? Effect.flatMap(Tokens.checkToken(token), () =>
            Effect.fail(new Forbidden({ message: "API tokens are not accepted on dashboard endpoints" })),
          )
        : Tokens.checkToken(token),
    bySession: (session) => {
      const roles = routes.roles()
      const groups = session.groups
      return Effect.succeed<Access.Actor>({
        _tag: "Person",
        email: session.email,
        canWrite: (platform: string) => Permissions.canWritePlatform(groups, roles, platform),
        canManage: Permissions.canManage(groups, roles),
      })
    },
  })
}

/**
 * The actor of a data write (`POST /api/{platform}`, `POST /api/{platform}/versions`, `PUT /api/{platform}/{version}`):
 * as `actorOf`, and a token is refused with 403 at once (rule 2), before its body is read, so that a write made
 * with a token is 403 whatever it carries (a malformed or incomplete body included), never a 400 that reads as
 * "fix the body and try again". Only the use case can say whether a person may write (it may need the body).
 */
export const writerOf = (c: Context, routes: SchemasRoutes): Effect.Effect<Access.Actor, ActorError, ActorServices> =>
  Effect.flatMap(actorOf(c, routes), (actor) =>
    actor._tag === "Token" ? Effect.fail(Access.tokensAreReadOnly()) : Effect.succeed(actor),
  )

/** The path parameters of the schemas routes, as the OpenAPI document describes them. */
export const PLATFORM_PARAM = { platform: "The platform's name" }
export const VERSION_PARAMS = {
  ...PLATFORM_PARAM,
  version: "A version string; `+` is literal in a path, so `+` and `%2B` name the same version",
}

/** A path parameter as the route matched it (Hono has already decoded it; `+` stays `+`). */
export const param = (c: Context, name: string): string => c.req.param(name) ?? ""
