/** Projects (seed 001 §4 "Projects"): list, create (201), get with environments, delete (owner only). */
import { createProject, deleteProject, getProject, listProjects } from "@coffer/secrets"
import { Effect, Schema } from "effect"
import type { Hono } from "hono"
import { decodeJson } from "../middleware/jsonBody.js"
import { type SecretsRoutes, withActor } from "./context.js"

const CreateProjectBody = Schema.Struct({ name: Schema.String })

export const mountProjects = (app: Hono, routes: SecretsRoutes): void => {
  const { handle } = routes
  app.get("/api/projects", (c) => handle(c, withActor(c, routes, listProjects)))
  app.post("/api/projects", (c) =>
    handle(
      c,
      withActor(c, routes, (actor) =>
        Effect.flatMap(decodeJson(c, CreateProjectBody), (body) => createProject(actor, body)),
      ),
      (created) => c.json(created, 201),
    ),
  )
  app.get("/api/projects/:slug", (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => getProject(actor, c.req.param("slug"))),
    ),
  )
  app.delete("/api/projects/:slug", (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => deleteProject(actor, c.req.param("slug"))),
    ),
  )
}
