/**
 * The secrets service (seed 001): liveness, readiness, the instance description, the sign-in routes
 * (`mountSecretsAuth`) and the domain routes of `../secrets/` (projects, people, environments, secrets and their
 * history, exports, API keys, audit log). Sign-in routes are mounted first, so no parameterised path shadows them.
 */
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { sessionCookieName } from "../auth/cookie.js"
import { mountSecretsAuth } from "../auth/secretsAuth.js"
import { clientAddress } from "../client/client.js"
import { PUBLIC } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { mountReference } from "../openapi/reference.js"
import { route } from "../openapi/route.js"
import { API_KEY_EXPIRES_HEADER } from "../secrets/context.js"
import { mountSecretsRoutes, type SecretsRouteServices } from "../secrets/index.js"
import { mountApiKeyIdentity } from "../secrets/me.js"
import { type AppOptions, createBaseApp, LIMITS_DESCRIPTION } from "./base.js"
import { mountProbes } from "./probes.js"
import type { ServiceSettings } from "./settings.js"

/** The services the secrets routes need from the runtime. */
export type SecretsServices = SecretsRouteServices

/** Where the sign-in button leads when OIDC is configured (seed 001 §4). */
export const OIDC_START_PATH = "/api/auth/oidc/start"

/**
 * The instance description. The sign-in button leads to the public origin: the provider sends the browser back
 * there (the redirect URI), and a sign-in started under another name of the same service (`127.0.0.1` where the
 * public origin says `localhost`, an internal host name) would set its state cookie where the callback cannot
 * read it, and fail.
 */
export const instanceDescription = (
  settings: Pick<ServiceSettings, "oidc" | "environment" | "publicOrigin">,
  version: string,
) => ({
  name: "coffer-secrets",
  version,
  signIn: {
    oidc:
      settings.oidc === undefined
        ? null
        : { name: settings.oidc.name, url: `${settings.publicOrigin ?? ""}${OIDC_START_PATH}` },
    development: settings.environment === "development",
  },
})

/** The instance description (seed 001 §2): what the sign-in page offers. */
export const Instance = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  signIn: Schema.Struct({
    oidc: Schema.NullOr(Schema.Struct({ name: Schema.String, url: Schema.String })),
    development: Schema.Boolean,
  }),
}).annotate({ identifier: "Instance" })

const TAG = "Service"

export const GetInstance = endpoint({
  method: "GET",
  path: "/api/instance",
  summary: "The instance description",
  tag: TAG,
  security: PUBLIC,
  responses: { 200: Instance },
})
export const GetRoot = endpoint({
  ...GetInstance,
  path: "/",
  summary: "The instance description (when the web app is not served)",
})
export const createSecretsApp = <ER>(options: AppOptions<SecretsServices, ER>): Hono => {
  const { app, handle, allowedMethods } = createBaseApp({
    runtime: options.runtime,
    settings: options.settings,
    peerAddress: options.clientAddress,
    publicOrigin: options.settings.publicOrigin,
    web: options.web,
  })
  const instance = instanceDescription(options.settings, options.version)

  mountProbes(app, handle)
  route(app, GetInstance, (c) => c.json(instance))
  // Seed 001 §4: `GET /` gives the instance description when the web app is not served; else `/` is the app.
  if (options.web === undefined) route(app, GetRoot, (c) => c.json(instance))
  const routes = {
    handle,
    settings: options.settings,
    publicOrigin: options.settings.publicOrigin,
    clientAddress,
    allowedMethods,
    webApp: options.web !== undefined,
  }
  // Before the session `me`: a request with an API key is answered here, one without falls through to it.
  mountApiKeyIdentity(app, routes)
  mountSecretsAuth(app, routes)
  mountSecretsRoutes(app, routes)
  mountReference(app, {
    title: "Coffer Secrets",
    version: options.version,
    description:
      "Encrypted secrets per project and environment (seed 001): projects, people and invites, environments, " +
      `secrets and their history, exports, API keys, the audit log. ${LIMITS_DESCRIPTION}`,
    bearer:
      "An API key (`cfk_…`): acts as its holder within one project and scope; 401 once expired. Every answer to a " +
      "request made with a key that expires carries `Coffer-Api-Key-Expires` (ISO 8601), when it stops working",
    sessionCookie: sessionCookieName("secrets", undefined),
    bearerAnswerHeaders: {
      [API_KEY_EXPIRES_HEADER]:
        "When the API key the request was made with stops working (ISO 8601); only for a key that expires",
    },
  })
  return app
}
