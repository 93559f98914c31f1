/**
 * @coffer/http: the two Hono apps, and the pieces they share: the one error-to-status table, the bridge
 * that runs use cases on the host's `ManagedRuntime`, and the middleware every response goes through.
 * Web-standard only: hosts hand the apps to `@hono/node-server`, `Bun.serve` or any fetch-based server.
 */

export { type AppOptions, type BaseAppOptions, createBaseApp } from "./app/base.js"
export {
  createSchemasApp,
  SCHEMAS_INTERFACE_VERSION,
  type SchemasAppOptions,
  type SchemasServices,
} from "./app/schemasApp.js"
export {
  createSecretsApp,
  instanceDescription,
  OIDC_START_PATH,
  type SecretsServices,
} from "./app/secretsApp.js"
export type { SchemasSettings, ServiceSettings } from "./app/settings.js"
export { clearSessionCookie, readSessionCookie, sessionCookieName, setSessionCookie } from "./auth/cookie.js"
export { BACKCHANNEL_LOGOUT_PATH } from "./auth/oidc.js"
export { type SameOriginOptions, sameOriginWrites } from "./auth/sameOrigin.js"
export { currentSession, notSignedIn, requireSession } from "./auth/session.js"
export { type ClientOptions, client, clientAddress, isHttps } from "./client/client.js"
export { type Address, contains, parseAddress, parseRange, type Range } from "./client/ipRange.js"
export {
  type Client,
  type ForwardingHeaders,
  isTrusted,
  NO_TRUSTED_PROXIES,
  resolveClient,
  type TrustedProxies,
  trustedProxies,
} from "./client/trustedProxies.js"
export * from "./errors.js"
export { bodyLimit, MAX_BODY_BYTES } from "./middleware/bodyLimit.js"
export { ALLOWED_HEADERS, ALLOWED_METHODS, cors, EXPOSED_HEADERS } from "./middleware/cors.js"
export {
  bodyProblem,
  decodeJson,
  MAX_JSON_DEPTH,
  nestingExceeds,
  optionalJson,
  readJson,
} from "./middleware/jsonBody.js"
export { isJsonContentType, type JsonWritesOptions, jsonWrites } from "./middleware/jsonWrites.js"
export { NO_STORE } from "./middleware/noStore.js"
export { type HeaderList, type PresetHead, presetHead, presetHeaders } from "./middleware/presetHeaders.js"
export {
  CONTENT_SECURITY_POLICY,
  type SecurityHeadersOptions,
  STRICT_TRANSPORT_SECURITY,
  securityHeaders,
} from "./middleware/securityHeaders.js"
export { METRICS_PATH, mountMetrics, PROMETHEUS_CONTENT_TYPE, prometheusText } from "./observability/metricsRoute.js"
export { MAX_REQUEST_ID_LENGTH, REQUEST_ID_HEADER, resolveRequestId } from "./observability/requestId.js"
export {
  MAX_QUEUED_LINES,
  type RequestLine,
  RequestLineWriter,
  type WriteRequestLine,
} from "./observability/requestLog.js"
export { noteFailure, type RequestState, requestSpan, requestTelemetry } from "./observability/requestTelemetry.js"
export { methodLabel, routeTemplate, UNMATCHED_ROUTE } from "./observability/route.js"
export { header } from "./request/header.js"
export { type Handle, makeHandle, reportException, responseForCause } from "./runtime.js"
export {
  IMMUTABLE_CACHE_CONTROL,
  isReservedPath,
  PAGE_CONTENT_SECURITY_POLICY,
  type WebApp,
  type WebFile,
  webResponse,
} from "./web/webApp.js"
