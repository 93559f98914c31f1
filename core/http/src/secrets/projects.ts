/** Projects (seed 001 §4 "Projects"): list, create (201), get with environments, delete (owner only). */
import {
  createProject,
  deleteProject,
  EnvironmentView,
  getProject,
  listProjects,
  PROJECT_NAME_MAX_LENGTH,
  ProjectView,
} from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { Ok, SESSION, SESSION_OR_BEARER } from "../openapi/common.js"
import { Label } from "../openapi/documented.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { PROJECT_PARAM, type SecretsRoutes, withActor } from "./context.js"

const CreateProjectBody = Schema.Struct({
  name: Label(PROJECT_NAME_MAX_LENGTH, "The slug is derived from it"),
})

const TAG = "Projects"

export const ListProjects = endpoint({
  method: "GET",
  path: "/api/projects",
  summary: "Projects the caller owns or belongs to",
  tag: TAG,
  security: SESSION_OR_BEARER,
  responses: { 200: Schema.Struct({ projects: Schema.Array(ProjectView) }) },
})

export const CreateProject = endpoint({
  method: "POST",
  path: "/api/projects",
  summary: "Create a project",
  description:
    "Also creates the environments development, staging and production. Sessions only. Refused with 503 by an " +
    "instance whose master key no longer opens the stored data (a rotation left it behind), so that no project's " +
    "data key is wrapped under a key being retired.",
  tag: TAG,
  security: SESSION,
  body: CreateProjectBody,
  responses: { 201: Schema.Struct({ project: ProjectView }) },
  errors: [403, 409],
})

export const GetProject = endpoint({
  method: "GET",
  path: "/api/projects/:slug",
  summary: "A project and its environments",
  tag: TAG,
  security: SESSION_OR_BEARER,
  params: PROJECT_PARAM,
  responses: { 200: Schema.Struct({ project: ProjectView, environments: Schema.Array(EnvironmentView) }) },
  errors: [404],
})

export const DeleteProject = endpoint({
  method: "DELETE",
  path: "/api/projects/:slug",
  summary: "Delete a project",
  description: "Owner only; deletes its environments, secrets, members and API keys.",
  tag: TAG,
  security: SESSION,
  params: PROJECT_PARAM,
  responses: { 200: Ok },
  errors: [403, 404],
})

export const mountProjects = (app: Hono, routes: SecretsRoutes): void => {
  const { handle } = routes
  route(app, ListProjects, (c) => handle(c, withActor(c, routes, listProjects)))
  route(app, CreateProject, (c, { body }) =>
    handle(
      c,
      withActor(c, routes, (actor) => Effect.flatMap(body, (input) => createProject(actor, input))),
      (created) => c.json(created, 201),
    ),
  )
  route(app, GetProject, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => getProject(actor, c.req.param("slug") ?? "")),
    ),
  )
  route(app, DeleteProject, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => deleteProject(actor, c.req.param("slug") ?? "")),
    ),
  )
}
