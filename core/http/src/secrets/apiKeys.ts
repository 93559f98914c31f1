/** API keys (seed 001 §4 "API keys"; session only): list, create (201), rotate, delete. */
import { createApiKey, deleteApiKey, KeyScope, listApiKeys, rotateApiKey } from "@coffer/secrets"
import { Effect, Schema } from "effect"
import type { Hono } from "hono"
import { decodeJson, optionalJson } from "../middleware/jsonBody.js"
import { type SecretsRoutes, withCaller } from "./context.js"

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
      withCaller(c, routes, (caller) => listApiKeys(caller, c.req.query("project"))),
    ),
  )
  app.post("/api/api-keys", (c) =>
    handle(
      c,
      withCaller(c, routes, (caller) =>
        Effect.flatMap(decodeJson(c, CreateApiKeyBody), (body) => createApiKey(caller, body)),
      ),
      (created) => c.json(created, 201),
    ),
  )
  app.post("/api/api-keys/:id/rotate", (c) =>
    handle(
      c,
      withCaller(c, routes, (caller) =>
        Effect.flatMap(optionalJson(c, RotateApiKeyBody), (body) => rotateApiKey(caller, c.req.param("id"), body)),
      ),
    ),
  )
  app.delete("/api/api-keys/:id", (c) =>
    handle(
      c,
      withCaller(c, routes, (caller) => deleteApiKey(caller, c.req.param("id"))),
    ),
  )
}
