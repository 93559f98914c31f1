/** The audit log (seed 001 §4 "Audit log"): `GET /api/projects/:slug/audit-log?limit=&offset=`. */
import { listAuditLog } from "@coffer/secrets"
import type { Hono } from "hono"
import { type SecretsRoutes, withActor } from "./context.js"

export const mountAuditLog = (app: Hono, routes: SecretsRoutes): void => {
  app.get("/api/projects/:slug/audit-log", (c) =>
    routes.handle(
      c,
      withActor(c, routes, (actor) =>
        listAuditLog(actor, c.req.param("slug"), { limit: c.req.query("limit"), offset: c.req.query("offset") }),
      ),
    ),
  )
}
