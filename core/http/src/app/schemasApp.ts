/**
 * The schemas service (seed 000): the probes (`/healthz`, `/readyz`, as the secrets service has), the interface
 * description, the sign-in routes (`mountSchemasAuth`: dev-login,
 * logout, get-session with live permissions) and the domain routes of `../schemas/` (platforms, versions, schemas
 * with their cascade, API tokens, deletion, audit). Sign-in routes are mounted first, so that no parameterised
 * path (`/api/{platform}/{version}`) shadows them.
 */

import type { Readiness } from "@coffer/kernel"
import type { Permissions } from "@coffer/schemas"
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { sessionCookieName } from "../auth/cookie.js"
import { mountSchemasAuth } from "../auth/schemasAuth.js"
import { clientAddress } from "../client/client.js"
import { PUBLIC } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { mountReference } from "../openapi/reference.js"
import { route } from "../openapi/route.js"
import { mountSchemasRoutes, type SchemasRouteServices } from "../schemas/index.js"
import { type AppOptions, createBaseApp, LIMITS_DESCRIPTION } from "./base.js"
import { mountProbes } from "./probes.js"
import { Instance, instanceDescription } from "./secretsApp.js"
import type { SchemasSettings } from "./settings.js"

/** The interface description's own version (seed 000 §9 rule 2). */
export const SCHEMAS_INTERFACE_VERSION = "1.0.0"

/** The services the schemas routes need from the runtime, and the readiness its probe reports. */
export type SchemasServices = SchemasRouteServices | Readiness.Readiness

export interface SchemasAppOptions<ER> extends AppOptions<SchemasServices, ER, SchemasSettings> {
  /**
   * The roles settings as they are now (seed 000 §5 rule 1: read on every request, so changing a group
   * setting narrows existing sessions at once). The host re-reads its environment; default: `settings.roles`.
   */
  readonly roles?: () => Permissions.Roles
}

export const GetSchemasInstance = endpoint({
  method: "GET",
  path: "/api/_ui/v1/instance",
  summary: "The instance description",
  description: "`interfaceVersion` is the version of this interface description.",
  tag: "Service",
  security: PUBLIC,
  responses: {
    200: Schema.Struct({ ...Instance.fields, interfaceVersion: Schema.Literal(SCHEMAS_INTERFACE_VERSION) }),
  },
})

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
  mountProbes(app, handle)
  route(app, GetSchemasInstance, (c) =>
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
  mountReference(app, {
    title: "Coffer Schemas",
    version: SCHEMAS_INTERFACE_VERSION,
    description:
      "Platform configuration schemas with inheritance (seed 000): platforms and versions, schemas that `@extends` " +
      "others (re-resolved in cascade on save), API tokens, deletion, the dashboard endpoints under `/api/_ui/v1`. " +
      `Services and CI read with a bearer token; people sign in for a session. ${LIMITS_DESCRIPTION}`,
    bearer: "A read-only API token (`cfs_…`): GET and HEAD on the data endpoints; a write with it answers 403",
    sessionCookie: sessionCookieName("schemas", undefined),
  })
  return app
}
