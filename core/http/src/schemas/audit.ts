/**
 * `GET /api/_ui/v1/audit?limit=&before=` (dashboard, admin permission): deletions and token creation and
 * revocation, newest first. `limit` is 1–200 (default 50); `before` is the `next` of the previous page. Answers
 * `{ entries: [{ id, at, actor, action, target, detail? }], next: string | null }`.
 */
import { parseWholeNumber } from "@coffer/kernel"
import { AuditLog, Views } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { PLAIN_NUMBER, SESSION } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { actorOf, DASHBOARD_PREFIX, type SchemasRoutes } from "./context.js"

/** `limit` from the query, by the one rule of both services: plain digits, so `1e2`, `10abc` and `010` are 400. */
const limitOf = (raw: string | undefined) =>
  Effect.fromResult(parseWholeNumber("limit", raw, { min: 1, max: AuditLog.MAX_AUDIT_PAGE }))

export const ListAudit = endpoint({
  method: "GET",
  path: `${DASHBOARD_PREFIX}/audit`,
  summary: "The audit log, newest first",
  description: "Deletions, kind changes and token creation and revocation. Admin permission.",
  tag: "Dashboard",
  security: SESSION,
  query: {
    limit: {
      schema: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: AuditLog.MAX_AUDIT_PAGE })),
      description: `Default ${AuditLog.DEFAULT_AUDIT_PAGE}; ${PLAIN_NUMBER}`,
    },
    before: { schema: Schema.String, description: "The `next` of the previous page" },
  },
  responses: {
    200: Schema.Struct({
      entries: Schema.Array(Views.AuditEntryView),
      next: Schema.NullOr(Schema.String).annotate({ description: "The `before` of the next page; null at the end" }),
    }),
  },
  errors: [400, 403],
})

export const mountAudit = (app: Hono, routes: SchemasRoutes): void => {
  const { handle } = routes

  route(app, ListAudit, (c) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        const limit = yield* limitOf(c.req.query("limit"))
        return yield* AuditLog.listAudit(actor, { limit, before: c.req.query("before") })
      }),
      (page) => c.json({ entries: page.entries.map(Views.auditEntry), next: page.next ?? null }),
    ),
  )
}
