/** Environments of a project (seed 001 §4 "Environments"): list, create (201; 409 when it exists), delete. */
import { createEnvironment, deleteEnvironment, listEnvironments } from "@coffer/secrets"
import { Effect, Schema } from "effect"
import type { Hono } from "hono"
import { decodeJson } from "../middleware/jsonBody.js"
import { type SecretsRoutes, withActor } from "./context.js"

const CreateEnvironmentBody = Schema.Struct({ name: Schema.String })

export const mountEnvironments = (app: Hono, routes: SecretsRoutes): void => {
  const { handle } = routes
  const base = "/api/projects/:slug/environments"
  app.get(base, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => listEnvironments(actor, c.req.param("slug"))),
    ),
  )
  app.post(base, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) =>
        Effect.flatMap(decodeJson(c, CreateEnvironmentBody), (body) =>
          createEnvironment(actor, c.req.param("slug"), body),
        ),
      ),
      (created) => c.json(created, 201),
    ),
  )
  app.delete(`${base}/:env`, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => deleteEnvironment(actor, c.req.param("slug"), c.req.param("env"))),
    ),
  )
}
