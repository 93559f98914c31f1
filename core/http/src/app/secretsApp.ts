/**
 * The secrets service (seed 001): liveness, readiness, the instance description, the sign-in routes
 * (`mountSecretsAuth`) and the domain routes of `../secrets/` (projects, people, environments, secrets and their
 * history, exports, API keys, audit log). Sign-in routes are mounted first, so no parameterised path shadows them.
 */
import { Readiness, StoreUnavailable } from "@coffer/kernel"
import { Duration, Effect } from "effect"
import type { Hono } from "hono"
import { mountSecretsAuth } from "../auth/secretsAuth.js"
import { clientAddress } from "../client/client.js"
import { mountSecretsRoutes, type SecretsRouteServices } from "../secrets/index.js"
import { mountApiKeyIdentity } from "../secrets/me.js"
import { type AppOptions, createBaseApp } from "./base.js"
import type { ServiceSettings } from "./settings.js"

/** The services the secrets routes need from the runtime. */
export type SecretsServices = SecretsRouteServices

/** Where the sign-in button leads when OIDC is configured (seed 001 §4). */
export const OIDC_START_PATH = "/api/auth/oidc/start"

/** A probe that hangs is as bad as a failed one: load balancers need an answer, so it is bounded. */
const READINESS_TIMEOUT = Duration.seconds(2)

export const instanceDescription = (settings: Pick<ServiceSettings, "oidc" | "environment">, version: string) => ({
  name: "coffer-secrets",
  version,
  signIn: {
    oidc: settings.oidc === undefined ? null : { name: settings.oidc.name, url: OIDC_START_PATH },
    development: settings.environment === "development",
  },
})

export const createSecretsApp = <ER>(options: AppOptions<SecretsServices, ER>): Hono => {
  const { app, handle } = createBaseApp({
    runtime: options.runtime,
    settings: options.settings,
    peerAddress: options.clientAddress,
    publicOrigin: options.settings.publicOrigin,
    web: options.web,
  })
  const instance = instanceDescription(options.settings, options.version)

  app.get("/healthz", (c) => c.text("ok"))
  app.get("/readyz", (c) =>
    handle(
      c,
      Readiness.Readiness.use((readiness) => readiness.check).pipe(
        Effect.timeoutOrElse({
          duration: READINESS_TIMEOUT,
          orElse: () => Effect.fail(new StoreUnavailable({ store: "database", message: "Readiness check timed out" })),
        }),
      ),
      () => c.text("ok"),
    ),
  )
  app.get("/api/instance", (c) => c.json(instance))
  // Seed 001 §4: `GET /` gives the instance description when the web app is not served; else `/` is the app.
  if (options.web === undefined) app.get("/", (c) => c.json(instance))
  const routes = {
    handle,
    settings: options.settings,
    publicOrigin: options.settings.publicOrigin,
    clientAddress,
    webApp: options.web !== undefined,
  }
  // Before the session `me`: a request with an API key is answered here, one without falls through to it.
  mountApiKeyIdentity(app, routes)
  mountSecretsAuth(app, routes)
  mountSecretsRoutes(app, routes)
  return app
}
