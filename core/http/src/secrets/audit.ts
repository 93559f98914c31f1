/**
 * The audit log (seed 001 §4 "Audit log"): `GET /api/projects/:slug/audit-log?limit=&offset=`, and the filters
 * `action`, `key`, `user`, `environment` and `apiKey` (`@coffer/secrets`' `usecases/auditFilter.ts` says what each
 * means).
 */
import {
  AUDIT_ACTIONS,
  AuditView,
  DEFAULT_AUDIT_LIMIT,
  listAuditLog,
  MAX_AUDIT_LIMIT,
  MAX_AUDIT_OFFSET,
} from "@coffer/secrets"
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { PLAIN_NUMBER, SESSION_OR_BEARER } from "../openapi/common.js"
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
      description: `Entries per page, default ${DEFAULT_AUDIT_LIMIT}; ${PLAIN_NUMBER}`,
    },
    offset: {
      schema: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: MAX_AUDIT_OFFSET })),
      description: `Entries to skip, default 0; ${PLAIN_NUMBER}`,
    },
    action: { schema: Schema.Literals(AUDIT_ACTIONS), description: "Only entries of this action" },
    key: {
      schema: Schema.String,
      description:
        "Only entries of this secret: its secret actions whose target is the key, or the key and `@<n>` " +
        "(an old version read or restored). A key that breaks the naming rules is a 400",
    },
    user: {
      schema: Schema.String,
      description: "Only entries by this e-mail address (as it was at the time), in any letter case",
    },
    environment: {
      schema: Schema.String,
      description:
        "Only entries of this environment of the project, by name; 404 when the project has no such environment",
    },
    apiKey: {
      schema: Schema.String,
      description:
        "Only entries made with this API key, by its id (an entry's `apiKey.id`, or an `id` of `GET /api/api-keys`); " +
        "a deleted key's entries included. Text that is not an API key's id is a 400",
    },
  },
  description:
    "Filters combine (every one given must hold) and apply before paging, so `limit` and `offset` count " +
    "matching entries. A filter value that means nothing is a 400 naming the parameter.",
  responses: { 200: Schema.Struct({ auditLog: Schema.Array(AuditView) }) },
  errors: [400, 404],
})

export const mountAuditLog = (app: Hono, routes: SecretsRoutes): void => {
  route(app, ListAuditLog, (c) =>
    routes.handle(
      c,
      withActor(c, routes, (actor) =>
        listAuditLog(actor, c.req.param("slug") ?? "", {
          limit: c.req.query("limit"),
          offset: c.req.query("offset"),
          action: c.req.query("action"),
          key: c.req.query("key"),
          user: c.req.query("user"),
          environment: c.req.query("environment"),
          apiKey: c.req.query("apiKey"),
        }),
      ),
    ),
  )
}
