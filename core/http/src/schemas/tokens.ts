/**
 * API token management (seed 000 §4, dashboard, admin permission): `GET /api/_ui/v1/tokens` lists the records,
 * `POST /api/_ui/v1/tokens` `{ name, platforms? }` answers 201 `{ token, record }` (the only time the token is
 * shown), `DELETE /api/_ui/v1/tokens/{id}` revokes at once on every instance (`{ ok: true }`; 404 when unknown).
 */
import { TokenAdmin, Views } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { Ok, SESSION } from "../openapi/common.js"
import { Label } from "../openapi/documented.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { actorOf, DASHBOARD_PREFIX, param, type SchemasRoutes } from "./context.js"
import { PlatformName } from "./fields.js"

const TokenBody = Schema.Struct({
  name: Label(TokenAdmin.MAX_TOKEN_NAME_LENGTH),
  platforms: Schema.optionalKey(Schema.NullOr(Schema.Array(PlatformName))).annotate({
    description: "Omitted or `null`: every platform",
  }),
})

const TAG = "API tokens"

export const ListTokens = endpoint({
  method: "GET",
  path: `${DASHBOARD_PREFIX}/tokens`,
  summary: "List API tokens",
  description: "Admin permission.",
  tag: TAG,
  security: SESSION,
  responses: { 200: Schema.Array(Views.TokenRecordView) },
  errors: [403],
})

export const CreateToken = endpoint({
  method: "POST",
  path: `${DASHBOARD_PREFIX}/tokens`,
  summary: "Create an API token",
  description: "Admin permission. The token (`cfs_…`) is shown this once; only its SHA-256 is kept.",
  tag: TAG,
  security: SESSION,
  body: TokenBody,
  responses: { 201: Schema.Struct({ token: Schema.String, record: Views.TokenRecordView }) },
  errors: [403],
})

export const RevokeToken = endpoint({
  method: "DELETE",
  path: `${DASHBOARD_PREFIX}/tokens/:id`,
  summary: "Revoke an API token",
  description: "Admin permission. The token stops working at once, on every instance.",
  tag: TAG,
  security: SESSION,
  params: { id: "The token record's id" },
  responses: { 200: Ok },
  errors: [403, 404],
})

export const mountTokens = (app: Hono, routes: SchemasRoutes): void => {
  const { handle } = routes

  route(app, ListTokens, (c) =>
    handle(c, Effect.flatMap(actorOf(c, routes), TokenAdmin.listTokens), (records) =>
      c.json(records.map(Views.tokenRecord)),
    ),
  )

  route(app, CreateToken, (c, { body }) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        return yield* TokenAdmin.createToken(actor, yield* body)
      }),
      ({ token, record }) => c.json({ token, record: Views.tokenRecord(record) }, 201),
    ),
  )

  route(app, RevokeToken, (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) => TokenAdmin.revokeToken(actor, param(c, "id"))),
      () => c.json({ ok: true }),
    ),
  )
}
