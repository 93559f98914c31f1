/** The audit log (seed 001 §4 "Audit log"): `GET /api/projects/:slug/audit-log?limit=&offset=`. */
import { AuditView, listAuditLog, MAX_AUDIT_LIMIT } from "@coffer/secrets"
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { SESSION_OR_BEARER } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { PROJECT_PARAM, type SecretsRoutes, withActor } from "./context.js"

export const ListAuditLog = endpoint({
  method: "GET",
  path: "/api/projects/:slug/audit-log",
  summary: "A project's audit log, newest first",
  tag: "Audit log",
  security: SESSION_OR_BEARER,
  params: PROJECT_PARAM,
  query: {
    limit: {
      schema: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_AUDIT_LIMIT })),
      description: "Entries per page, default 50",
    },
    offset: { schema: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), description: "Entries to skip, default 0" },
  },
  responses: { 200: Schema.Struct({ auditLog: Schema.Array(AuditView) }) },
  errors: [400, 404],
})

export const mountAuditLog = (app: Hono, routes: SecretsRoutes): void => {
  route(app, ListAuditLog, (c) =>
    routes.handle(
      c,
      withActor(c, routes, (actor) =>
        listAuditLog(actor, c.req.param("slug") ?? "", { limit: c.req.query("limit"), offset: c.req.query("offset") }),
      ),
    ),
  )
}
