/**
 * API token management (seed 000 §4, dashboard, admin permission): `GET /api/_ui/v1/tokens` lists the records,
 * `POST /api/_ui/v1/tokens` `{ name, platforms? }` answers 201 `{ token, record }` (the only time the token is
 * shown), `DELETE /api/_ui/v1/tokens/{id}` revokes at once on every instance (`{ ok: true }`; 404 when unknown).
 */
import { TokenAdmin, Views } from "@coffer/schemas"
import { Effect, Schema } from "effect"
import type { Hono } from "hono"
import { decodeJson } from "../middleware/jsonBody.js"
import { actorOf, DASHBOARD_PREFIX, param, type SchemasRoutes } from "./context.js"

const TokenBody = Schema.Struct({
  name: Schema.String,
  /** Omitted or `null`: every platform. */
  platforms: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
})

export const mountTokens = (app: Hono, routes: SchemasRoutes): void => {
  const { handle } = routes

  app.get(`${DASHBOARD_PREFIX}/tokens`, (c) =>
    handle(c, Effect.flatMap(actorOf(c, routes), TokenAdmin.listTokens), (records) =>
      c.json(records.map(Views.tokenRecord)),
    ),
  )

  app.post(`${DASHBOARD_PREFIX}/tokens`, (c) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        const body = yield* decodeJson(c, TokenBody)
        return yield* TokenAdmin.createToken(actor, body)
      }),
      ({ token, record }) => c.json({ token, record: Views.tokenRecord(record) }, 201),
    ),
  )

  app.delete(`${DASHBOARD_PREFIX}/tokens/:id`, (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) => TokenAdmin.revokeToken(actor, param(c, "id"))),
      () => c.json({ ok: true }),
    ),
  )
}
