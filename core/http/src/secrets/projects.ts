/** Projects (seed 001 §4 "Projects"): list, create (201), get with environments, delete (owner only). */
import { createProject, deleteProject, getProject, listProjects } from "@coffer/secrets"
import { Effect, Schema } from "effect"
import type { Hono } from "hono"
import { decodeJson } from "../middleware/jsonBody.js"
import { type SecretsRoutes, withCaller } from "./context.js"

const CreateProjectBody = Schema.Struct({ name: Schema.String })

export const mountProjects = (app: Hono, routes: SecretsRoutes): void => {
  const { handle } = routes
  app.get("/api/projects", (c) => handle(c, withCaller(c, routes, listProjects)))
  app.post("/api/projects", (c) =>
    handle(
      c,
      withCaller(c, routes, (caller) =>
        Effect.flatMap(decodeJson(c, CreateProjectBody), (body) => createProject(caller, body)),
      ),
      (created) => c.json(created, 201),
    ),
  )
  app.get("/api/projects/:slug", (c) =>
    handle(
      c,
      withCaller(c, routes, (caller) => getProject(caller, c.req.param("slug"))),
    ),
  )
  app.delete("/api/projects/:slug", (c) =>
    handle(
      c,
      withCaller(c, routes, (caller) => deleteProject(caller, c.req.param("slug"))),
    ),
  )
}
