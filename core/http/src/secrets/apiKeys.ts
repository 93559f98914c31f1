/** API keys (seed 001 §4 "API keys"; session only): list, create (201), rotate, delete. */
import { createApiKey, deleteApiKey, KeyScope, listApiKeys, rotateApiKey } from "@coffer/secrets"
import { Effect, Schema } from "effect"
import type { Hono } from "hono"
import { decodeJson, optionalJson } from "../middleware/jsonBody.js"
import { type SecretsRoutes, withActor } from "./context.js"

// Whole-number and range checks are the use case's, so the message names the rule; here only the JSON types.
const CreateApiKeyBody = Schema.Struct({
  name: Schema.String,
  projectSlug: Schema.String,
  scope: Schema.optional(KeyScope),
  expiresInDays: Schema.optional(Schema.Number),
})
const RotateApiKeyBody = Schema.Struct({ expiresInDays: Schema.optional(Schema.Number) })

export const mountApiKeys = (app: Hono, routes: SecretsRoutes): void => {
  const { handle } = routes
  app.get("/api/api-keys", (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => listApiKeys(actor, c.req.query("project"))),
    ),
  )
  app.post("/api/api-keys", (c) =>
    handle(
      c,
      withActor(c, routes, (actor) =>
        Effect.flatMap(decodeJson(c, CreateApiKeyBody), (body) => createApiKey(actor, body)),
      ),
      (created) => c.json(created, 201),
    ),
  )
  app.post("/api/api-keys/:id/rotate", (c) =>
    handle(
      c,
      withActor(c, routes, (actor) =>
        Effect.flatMap(optionalJson(c, RotateApiKeyBody), (body) => rotateApiKey(actor, c.req.param("id"), body)),
      ),
    ),
  )
  app.delete("/api/api-keys/:id", (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => deleteApiKey(actor, c.req.param("id"))),
    ),
  )
}
