/**
 * `GET /api/_ui/v1/audit?limit=&before=` (dashboard, admin permission): deletions and token creation and
 * revocation, newest first. `limit` is 1–200 (default 50); `before` is the `next` of the previous page. Answers
 * `{ entries: [{ id, at, actor, action, target, detail? }], next: string | null }`.
 */
import { BadRequest } from "@coffer/kernel"
import { AuditLog, Views } from "@coffer/schemas"
import { Effect } from "effect"
import type { Hono } from "hono"
import { actorOf, DASHBOARD_PREFIX, type SchemasRoutes } from "./context.js"

/** `limit` from the query: digits only, so that `1e2` or `10abc` are refused rather than half-read. */
const limitOf = (raw: string | undefined): Effect.Effect<number | undefined, BadRequest> => {
  if (raw === undefined) return Effect.succeed(undefined)
  return /^\d{1,4}$/.test(raw)
    ? Effect.succeed(Number(raw))
    : Effect.fail(new BadRequest({ message: "limit must be an integer from 1 to 200" }))
}

export const mountAudit = (app: Hono, routes: SchemasRoutes): void => {
  const { handle } = routes

  app.get(`${DASHBOARD_PREFIX}/audit`, (c) =>
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
