/**
 * What each app is handed of the host's settings: the few fields it reads (`@coffer/http`'s `ServiceSettings`),
 * never the database URL, the Redis URL or a master key. Each app gets its own public origin. The trusted proxies
 * were checked by `Settings.parse`, so compiling them here cannot fail.
 */
import { type SchemasSettings, type ServiceSettings, trustedProxies } from "@coffer/http"
import * as Result from "effect/Result"
import type * as Settings from "./Settings.js"

const common = (settings: Settings.Settings, publicOrigin: string | undefined): ServiceSettings => ({
  environment: settings.environment,
  rateLimit: settings.rateLimit,
  corsOrigins: settings.corsOrigins,
  trustedProxies: Result.getOrThrow(trustedProxies(settings.trustedProxies)),
  publicOrigin,
  oidc: settings.oidc === undefined ? undefined : { name: settings.oidc.name },
  metricsToken: settings.metricsToken,
})

/** The secrets app's settings; its public origin is `COFFER_PUBLIC_ORIGIN` unless the host knows better. */
export const secretsAppSettings = (
  settings: Settings.Settings,
  publicOrigin: string | undefined = settings.publicOrigin,
): ServiceSettings => common(settings, publicOrigin)

/** The schemas app's settings; its public origin is `COFFER_SCHEMAS_PUBLIC_ORIGIN` unless the host knows better. */
export const schemasAppSettings = (
  settings: Settings.Settings,
  publicOrigin: string | undefined = settings.schemasPublicOrigin,
): SchemasSettings => ({ ...common(settings, publicOrigin), roles: settings.roles })
