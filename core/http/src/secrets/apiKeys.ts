/** API keys (seed 001 §4 "API keys"; session only): list, create (201), rotate, delete. */
import {
  API_KEY_NAME_MAX_LENGTH,
  ApiKeyView,
  createApiKey,
  deleteApiKey,
  IsoTime,
  KeyScope,
  listApiKeys,
  MAX_EXPIRES_IN_DAYS,
  MIN_EXPIRES_IN_DAYS,
  rotateApiKey,
} from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { Ok, SESSION } from "../openapi/common.js"
import { Label } from "../openapi/documented.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { type SecretsRoutes, withActor } from "./context.js"

/**
 * Seed 001 §8's rule, in the Schema that decodes the body, so that the OpenAPI document says exactly what is taken:
 * an integer from 1 to 3650 (a bare `Schema.Number` is described with the strings `"Infinity"` and `"NaN"` beside
 * it, which JSON bodies never decode to). Both checks say the whole rule; the use case checks it again for callers
 * that do not come through HTTP.
 */
const expiresInDaysRule = {
  message: `Expected a whole number of days from ${MIN_EXPIRES_IN_DAYS} to ${MAX_EXPIRES_IN_DAYS}`,
}
export const ExpiresInDays = Schema.optionalKey(
  Schema.Number.check(
    Schema.isInt(expiresInDaysRule),
    Schema.isBetween({ minimum: MIN_EXPIRES_IN_DAYS, maximum: MAX_EXPIRES_IN_DAYS }, expiresInDaysRule),
  ),
).annotate({ description: `A whole number of days from ${MIN_EXPIRES_IN_DAYS} to ${MAX_EXPIRES_IN_DAYS}` })
const CreateApiKeyBody = Schema.Struct({
  name: Label(API_KEY_NAME_MAX_LENGTH),
  projectSlug: Schema.String,
  scope: Schema.optionalKey(KeyScope).annotate({ description: "Default `read`; `write` needs write access" }),
  expiresInDays: ExpiresInDays,
})
const RotateApiKeyBody = Schema.Struct({ expiresInDays: ExpiresInDays })

/** A key as issued: the only time it is shown; only its SHA-256 is kept. */
export const IssuedKey = Schema.Struct({
  id: Schema.String,
  key: Schema.String.annotate({ description: "The key (`cfk_…`), shown this once" }),
  prefix: Schema.String,
  name: Schema.String,
  scope: KeyScope,
  expiresAt: Schema.NullOr(IsoTime),
}).annotate({ identifier: "IssuedApiKey" })

const TAG = "API keys"
const KEY_PARAM = { id: "The key's id" }

export const ListApiKeys = endpoint({
  method: "GET",
  path: "/api/api-keys",
  summary: "The caller's keys, and every key of projects they own",
  tag: TAG,
  security: SESSION,
  query: { project: { schema: Schema.String, description: "Only this project's keys (its slug)" } },
  responses: { 200: Schema.Struct({ apiKeys: Schema.Array(ApiKeyView) }) },
  errors: [403, 404],
})

export const CreateApiKey = endpoint({
  method: "POST",
  path: "/api/api-keys",
  summary: "Create an API key",
  description: "Read members can create only read keys. No expiry unless `expiresInDays` is given.",
  tag: TAG,
  security: SESSION,
  body: CreateApiKeyBody,
  responses: { 201: IssuedKey },
  errors: [403, 404],
})

export const RotateApiKey = endpoint({
  method: "POST",
  path: "/api/api-keys/:id/rotate",
  summary: "Rotate an API key",
  description:
    "Own keys only; the lifetime is unchanged unless `expiresInDays` is given, which an expired key needs (400 " +
    "without it). The body may be left out. Of two rotations of one key at once, one answers its new value and the " +
    "other 409: only one value can work.",
  tag: TAG,
  security: SESSION,
  params: KEY_PARAM,
  body: RotateApiKeyBody,
  bodyOptional: true,
  responses: { 200: IssuedKey },
  errors: [400, 403, 404, 409],
})

export const DeleteApiKey = endpoint({
  method: "DELETE",
  path: "/api/api-keys/:id",
  summary: "Delete an API key",
  description: "Own keys, or any key of a project the caller owns; the key stops working at once.",
  tag: TAG,
  security: SESSION,
  params: KEY_PARAM,
  responses: { 200: Ok },
  errors: [403, 404],
})

export const mountApiKeys = (app: Hono, routes: SecretsRoutes): void => {
  const { handle } = routes
  route(app, ListApiKeys, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => listApiKeys(actor, c.req.query("project"))),
    ),
  )
  route(app, CreateApiKey, (c, { body }) =>
    handle(
      c,
      withActor(c, routes, (actor) => Effect.flatMap(body, (input) => createApiKey(actor, input))),
      (created) => c.json(created, 201),
    ),
  )
  route(app, RotateApiKey, (c, { body }) =>
    handle(
      c,
      withActor(c, routes, (actor) =>
        Effect.flatMap(body, (input) => rotateApiKey(actor, c.req.param("id") ?? "", input)),
      ),
    ),
  )
  route(app, DeleteApiKey, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => deleteApiKey(actor, c.req.param("id") ?? "")),
    ),
  )
}
