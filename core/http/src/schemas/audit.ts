/**
 * `GET /api/_ui/v1/audit?limit=&before=` (dashboard, admin permission): deletions and token creation and
 * revocation, newest first. `limit` is 1–200 (default 50); `before` is the `next` of the previous page. Answers
 * `{ entries: [{ id, at, actor, action, target, detail? }], next: string | null }`.
 */
import { BadRequest } from "@coffer/kernel"
import { AuditLog, Views } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { SESSION } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { actorOf, DASHBOARD_PREFIX, type SchemasRoutes } from "./context.js"

/** `limit` from the query: digits only, so that `1e2` or `10abc` are refused rather than half-read. */
const limitOf = (raw: string | undefined): Effect.Effect<number | undefined, BadRequest> => {
  if (raw === undefined) return Effect.succeed(undefined)
  return /^\d{1,4}$/.test(raw)
    ? Effect.succeed(Number(raw))
    : Effect.fail(new BadRequest({ message: "limit must be an integer from 1 to 200" }))
}

export const ListAudit = endpoint({
  method: "GET",
  path: `${DASHBOARD_PREFIX}/audit`,
  summary: "The audit log, newest first",
  description: "Deletions, kind changes and token creation and revocation. Admin permission.",
  tag: "Dashboard",
  security: SESSION,
  query: {
    limit: { schema: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 200 })), description: "Default 50" },
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
