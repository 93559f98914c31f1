/**
 * The schemas service (seed 000): the interface description, the sign-in routes (`mountSchemasAuth`: dev-login,
 * logout, get-session with live permissions) and the domain routes of `../schemas/` (platforms, versions, schemas
 * with their cascade, API tokens, deletion, audit). Sign-in routes are mounted first, so that no parameterised
 * path (`/api/{platform}/{version}`) shadows them.
 */

import type { Permissions } from "@coffer/schemas"
import type { Hono } from "hono"
import { mountSchemasAuth } from "../auth/schemasAuth.js"
import { clientAddress } from "../client/client.js"
import { mountSchemasRoutes, type SchemasRouteServices } from "../schemas/index.js"
import { type AppOptions, createBaseApp } from "./base.js"
import { instanceDescription } from "./secretsApp.js"
import type { SchemasSettings } from "./settings.js"

/** The interface description's own version (seed 000 §9 rule 2). */
export const SCHEMAS_INTERFACE_VERSION = "1.0.0"

/** The services the schemas routes need from the runtime. */
export type SchemasServices = SchemasRouteServices

export interface SchemasAppOptions<ER> extends AppOptions<SchemasServices, ER, SchemasSettings> {
  /**
   * The roles settings as they are now (seed 000 §5 rule 1: read on every request, so changing a group
   * setting narrows existing sessions at once). The host re-reads its environment; default: `settings.roles`.
   */
  readonly roles?: () => Permissions.Roles
}

export const createSchemasApp = <ER>(options: SchemasAppOptions<ER>): Hono => {
  const { publicOrigin } = options.settings
  const { app, handle } = createBaseApp({
    runtime: options.runtime,
    settings: options.settings,
    peerAddress: options.clientAddress,
    publicOrigin,
    web: options.web,
  })
  // `signIn` tells the dashboard which sign-in to offer, as the secrets service's instance description does.
  const { signIn } = instanceDescription(options.settings, options.version)
  app.get("/api/_ui/v1/instance", (c) =>
    c.json({
      name: "coffer-schemas",
      version: options.version,
      interfaceVersion: SCHEMAS_INTERFACE_VERSION,
      signIn,
    }),
  )
  const roles = options.roles ?? (() => options.settings.roles)
  const routes = {
    handle,
    settings: options.settings,
    publicOrigin,
    roles,
    clientAddress,
    webApp: options.web !== undefined,
  }
  mountSchemasAuth(app, routes)
  mountSchemasRoutes(app, routes)
  return app
}
