/**
 * The schemas service (seed 000). So far: its interface description; the routes of the domain join here.
 */
import type { Hono } from "hono"
import { type AppOptions, createBaseApp } from "./base.js"

/** The interface description's own version (seed 000 §9 rule 2). */
export const SCHEMAS_INTERFACE_VERSION = "1.0.0"

/** The services the schemas routes need from the runtime; grows as the domain arrives. */
export type SchemasServices = never

export const createSchemasApp = <ER>(options: AppOptions<SchemasServices, ER>): Hono => {
  const { app } = createBaseApp({
    runtime: options.runtime,
    settings: options.settings,
    publicOrigin: options.settings.schemasPublicOrigin,
  })
  app.get("/api/_ui/v1/instance", (c) =>
    c.json({ name: "coffer-schemas", version: options.version, interfaceVersion: SCHEMAS_INTERFACE_VERSION }),
  )
  return app
}
