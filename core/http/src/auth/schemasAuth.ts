/**
 * The schemas service's own sign-in routes (seed 000 §2 "Session permissions", §5), besides the OIDC ones:
 * - `POST /api/auth/dev-login` `{ email, groups? }`: only with `COFFER_ENV=development` (404 otherwise). The
 *   groups stand for the roles claim and are recorded on the session, as a sign-in records the claim (rule 3).
 *   The schemas service keeps no accounts: the person is `dev:<address>` (normalised). Rate-limited per
 *   client (group `schemas:dev-login`).
 * - `POST /api/auth/logout`: ends the session server-side and clears the cookie; `{ ok: true }` either way. With
 *   an API token: 403, nothing ended.
 * - `GET /api/auth/get-session`: the session and its `permissions` (`write`, `manage`, `restricted`), worked out
 *   on every request from the roles settings as they are now (rule 1), or 401.
 *
 * Mount these before the platform routes: `/api/{platform}/…` would otherwise answer for a platform `auth`.
 */
import type { Cache, Hasher, Sessions } from "@coffer/kernel"
import { Permissions, schemasSignedIn, Views } from "@coffer/schemas"
import { Accounts } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Context, Hono } from "hono"
import type { ServiceSettings } from "../app/settings.js"
import { SESSION } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import type { Handle } from "../runtime.js"
import { Email, mountDevLogin, mountLogout } from "./devLogin.js"
import { mountServiceOidc } from "./oidc.js"
import { requireSession } from "./session.js"

export const GET_SESSION_PATH = "/api/auth/get-session"

/** What these routes need from the runtime. */
export type SchemasAuthServices = Sessions.Sessions | Cache.Cache | Hasher.Hasher

export interface SchemasAuthOptions {
  readonly handle: Handle<SchemasAuthServices>
  readonly settings: ServiceSettings
  /** The schemas service's public origin: the cookie's name and `Secure` follow its scheme. */
  readonly publicOrigin: string | undefined
  /** The roles settings as they are now (`AppOptions.roles`), read on every request. */
  readonly roles: () => Permissions.Roles
  /** `AppOptions.clientAddress`, for the per-client rate limit. */
  readonly clientAddress?: ((c: Context) => string | undefined) | undefined
  /** Whether the web app is served here: failed sign-ins then redirect to `/sign-in?error=<reason>`. */
  readonly webApp?: boolean | undefined
}

/** Bounds on what a development login may claim; a real roles claim is far smaller. */
const MAX_GROUPS = 100
const MAX_GROUP_LENGTH = 256

/** A group name as a roles claim carries one: no control or format characters (a NUL would reach the store). */
const Group = Schema.String.check(
  Schema.isMinLength(1),
  Schema.isMaxLength(MAX_GROUP_LENGTH),
  Schema.isPattern(/^[^\p{Cc}\p{Cf}]+$/u, { message: "expected a group name without control or format characters" }),
)
const DevLoginBody = Schema.Struct({
  email: Email,
  groups: Schema.optionalKey(Schema.Array(Group).check(Schema.isMaxLength(MAX_GROUPS))),
})

/** Who is signed in, as the sign-in routes answer it. */
const User = Schema.Struct({ id: Schema.String, email: Schema.String, groups: Schema.Array(Schema.String) })

export const GetSession = endpoint({
  method: "GET",
  path: GET_SESSION_PATH,
  summary: "The session and its permissions",
  description: "Permissions are worked out on every request from the roles settings as they are now.",
  tag: "Sign-in",
  security: SESSION,
  responses: {
    200: Schema.Struct({
      session: Schema.Struct({ user: User, createdAt: Schema.String, expiresAt: Schema.String }),
      permissions: Views.PermissionsView,
    }),
  },
})

/** The schemas person of a development login. */
export const developmentUserId = (email: string) => `dev:${Accounts.emailKey(email)}`

const userOf = (session: Pick<Sessions.Session, "userId" | "email" | "groups">) => ({
  id: session.userId,
  email: session.email,
  groups: session.groups,
})

export const mountSchemasAuth = (app: Hono, options: SchemasAuthOptions): void => {
  const { handle, publicOrigin } = options

  mountDevLogin(app, {
    ...options,
    service: "schemas",
    body: DevLoginBody,
    user: User,
    signIn: (body) => {
      const session = { userId: developmentUserId(body.email), email: body.email, groups: [...new Set(body.groups)] }
      return Effect.succeed({ session, user: userOf(session) })
    },
  })
  mountLogout(app, {
    handle,
    service: "schemas",
    publicOrigin,
    bearer: { name: "API token", revokedWhen: "it is revoked (DELETE /api/_ui/v1/tokens/{id}, or the dashboard)" },
  })

  route(app, GetSession, (c) =>
    handle(
      c,
      Effect.map(requireSession(c, "schemas", publicOrigin), (session) => ({
        session: {
          user: userOf(session),
          createdAt: new Date(session.createdAt).toISOString(),
          expiresAt: new Date(session.expiresAt).toISOString(),
        },
        permissions: Permissions.permissionsFor(session.groups, options.roles()),
      })),
    ),
  )
  mountServiceOidc(app, { ...options, service: "schemas", onSignedIn: schemasSignedIn(() => options.roles().claim) })
}
