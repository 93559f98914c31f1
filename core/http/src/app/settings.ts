/**
 * What the apps read of the host's configuration, and nothing more: no database URL, no master key, no ports.
 * The host parses its environment (`@coffer/node`'s `config/`) and hands each app the fields it reads, its own
 * public origin among them.
 */
import type { Permissions } from "@coffer/schemas"
import type * as Redacted from "effect/Redacted"
import type { TrustedProxies } from "../client/trustedProxies.js"

export interface ServiceSettings {
  /** `COFFER_ENV`: `development` turns the development login on. */
  readonly environment: "development" | "production"
  /** `COFFER_RATE_LIMIT`: attempts per client address per minute on limited paths; `0` turns limits off. */
  readonly rateLimit: number
  /** `CORS_ORIGIN`: origins allowed to call the service from a browser, with credentials (normalised). */
  readonly corsOrigins: ReadonlyArray<string>
  /** This service's public origin (`COFFER_PUBLIC_ORIGIN` or `COFFER_SCHEMAS_PUBLIC_ORIGIN`): HSTS when https. */
  readonly publicOrigin: string | undefined
  /** `COFFER_TRUSTED_PROXIES`: peers whose `X-Forwarded-For` and `-Proto` are believed; none when absent. */
  readonly trustedProxies?: TrustedProxies | undefined
  /** The identity provider's display name (`OIDC_NAME`) when sign-in through one is configured. */
  readonly oidc: { readonly name: string } | undefined
  /** `COFFER_METRICS_TOKEN`: the bearer token `/metrics` asks for; without it `/metrics` is not served. */
  readonly metricsToken?: Redacted.Redacted<string> | undefined
}

/** The schemas service reads its roles too (`OIDC_ROLES_CLAIM` and the group settings). */
export interface SchemasSettings extends ServiceSettings {
  readonly roles: Permissions.Roles
}
