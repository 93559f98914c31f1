/**
 * The stack both apps stand on, in the order that makes every rule hold for every response: the request's
 * telemetry outermost (its log line, metrics and span see the final answer, errors included) and its
 * `X-Request-Id`, `no-store` and the security headers (so errors, 404s and preflights carry them), then CORS (so a
 * listed origin can read even a 413), then the content-type and size checks that reject a request before any
 * route runs. Unknown paths answer 404 `{ error: "Not found" }`, or the web app when one is served and the path is
 * the app's (`../web/webApp.ts`: the app is the not-found handler, so it shadows no route); a path a route takes
 * answers another method 405, and `OPTIONS` 204, both with `Allow` naming its methods (one list, `OPTIONS` in it:
 * `CachedRouter.allowedMethods`); an exception that escapes a route answers a bare 500 and is logged in the
 * request's line. `/metrics` is mounted when a token is configured.
 */
import { MethodNotAllowed, NotFound } from "@coffer/kernel"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import { Hono, type Context as HonoContext } from "hono"
import { DEV_LOGIN_PATH } from "../auth/devLogin.js"
import { BACKCHANNEL_LOGOUT_PATH } from "../auth/oidc.js"
import { sameOriginWrites } from "../auth/sameOrigin.js"
import { errorResponse } from "../errors.js"
import { bodyLimit } from "../middleware/bodyLimit.js"
import { cors } from "../middleware/cors.js"
import { jsonWrites, WRITE_METHODS } from "../middleware/jsonWrites.js"
import { mountMetrics } from "../observability/metricsRoute.js"
import { type Handle, makeHandle, reportException } from "../runtime.js"
import { type WebApp, webResponse } from "../web/webApp.js"
import { requestFrame } from "./requestFrame.js"
import { CachedRouter } from "./router.js"
import type { ServiceSettings } from "./settings.js"

/** The limits every route keeps, as the OpenAPI documents state them (DESIGN.md "Limits on input"). */
export const LIMITS_DESCRIPTION =
  "Limits: request bodies over 1 MiB answer 413 and JSON nested deeper than 100 levels 400, before any work; " +
  "sign-in, development login, invite acceptance and failed credentials are rate-limited per client address " +
  "(`COFFER_RATE_LIMIT` a minute; 429 with `Retry-After`). Every error is `{ error }` JSON; every answer carries " +
  "`Cache-Control: no-store`. What is out of the caller's reach answers 404."

export interface AppOptions<R, ER = unknown, S extends ServiceSettings = ServiceSettings> {
  /** Built once by the host from the chosen layers; routes run their use cases on it. */
  readonly runtime: ManagedRuntime.ManagedRuntime<R, ER>
  /** What the app reads of the host's configuration (`./settings.ts`). */
  readonly settings: S
  /** The package version, reported by the instance endpoints. */
  readonly version: string
  /**
   * The socket peer's address. Runtime-specific (the host reads its server), so it is supplied by the host;
   * without it every request counts as one client. Forwarding headers are believed only from the peers listed in
   * `settings.trustedProxies` (`../client/client.ts`), never from the host's reading.
   */
  readonly clientAddress?: (c: HonoContext) => string | undefined
  /**
   * The service's built web app, loaded by the host (`COFFER_WEB=on` and the build present). When given, `/`
   * and every app path answer the app, and failed sign-ins redirect to `/sign-in?error=<reason>`.
   */
  readonly web?: WebApp | undefined
}

export interface BaseAppOptions<R, ER> {
  readonly runtime: ManagedRuntime.ManagedRuntime<R, ER>
  readonly settings: Pick<ServiceSettings, "corsOrigins" | "trustedProxies" | "metricsToken">
  /** `AppOptions.clientAddress`: the socket's peer. */
  readonly peerAddress?: ((c: HonoContext) => string | undefined) | undefined
  /** This service's public origin (HSTS is sent when it is https). */
  readonly publicOrigin: string | undefined
  /** Paths that accept non-JSON writes. */
  readonly nonJsonWrites?: ReadonlyArray<string>
  /** The web app served on paths no route takes. */
  readonly web?: WebApp | undefined
}

export interface BaseApp<R> {
  readonly app: Hono
  readonly handle: Handle<R>
  /**
   * The methods a path answers, `OPTIONS` included (`CachedRouter.allowedMethods`): what every `Allow` names, the
   * 405 of a route that refuses a method itself (a secret value's `HEAD`) included.
   */
  readonly allowedMethods: (path: string) => ReadonlyArray<string>
}

export const createBaseApp = <R, ER>(options: BaseAppOptions<R, ER>): BaseApp<R> => {
  // The router runs a request's handlers as one and answers what they throw as the app does (`onError` below).
  const router = new CachedRouter(reportException)
  const app = new Hono({ router })
  // Telemetry, the preset headers and the client, before every later step (rate limits, audit, cookies).
  app.use(
    requestFrame({
      runtime: options.runtime,
      publicOrigin: options.publicOrigin,
      peerAddress: options.peerAddress,
      trustedProxies: options.settings.trustedProxies,
    }),
  )
  if (options.settings.corsOrigins.length > 0) app.use(cors(options.settings.corsOrigins))
  // Both apps mount the provider's back-channel logout, which is form-encoded and cookieless.
  const exempt = [BACKCHANNEL_LOGOUT_PATH, ...(options.nonJsonWrites ?? [])]
  // Mounted for the methods that carry a body only, so that reads do not pass through them at all.
  app.on(
    [...WRITE_METHODS],
    "*",
    sameOriginWrites({
      publicOrigin: options.publicOrigin,
      corsOrigins: options.settings.corsOrigins,
      exempt,
      signIns: [DEV_LOGIN_PATH],
    }),
    jsonWrites({ exempt }),
    bodyLimit(),
  )
  const { web } = options
  app.notFound((c) => {
    const page = web === undefined ? undefined : webResponse(web, c.req.method, c.req.path)
    if (page !== undefined) return page
    const allow = router.allowedMethods(c.req.path)
    // `OPTIONS` asks what a path answers (RFC 9110 §9.3.7): 204 naming its methods, where it has any. A listed
    // origin's preflight was answered by CORS before this; any other origin's gets this 204 without an
    // `Access-Control-Allow-Origin`, which the browser refuses, naming that header as the reason (a 404 told the
    // developer the URL was wrong). An unknown path stays 404.
    if (c.req.method === "OPTIONS" && allow.length > 0) return c.body(null, 204, { Allow: allow.join(", ") })
    return errorResponse(
      c,
      allow.length === 0
        ? new NotFound({ message: "Not found" })
        : new MethodNotAllowed({
            message: `This path does not answer ${c.req.method}; it answers ${allow.join(", ")}`,
            allow,
          }),
    )
  })
  app.onError(reportException)
  mountMetrics(app, options.runtime, options.settings.metricsToken)
  return { app, handle: makeHandle(options.runtime), allowedMethods: (path) => router.allowedMethods(path) }
}
