/** Environments of a project (seed 001 §4 "Environments"): list, create (201; 409 when it exists), delete. */
import { createEnvironment, deleteEnvironment, EnvironmentView, listEnvironments } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { Ok, SESSION_OR_BEARER } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { ENVIRONMENT_PARAMS, PROJECT_PARAM, type SecretsRoutes, withActor } from "./context.js"
import { EnvironmentName } from "./fields.js"

const CreateEnvironmentBody = Schema.Struct({ name: EnvironmentName })

const TAG = "Environments"
const BASE = "/api/projects/:slug/environments"

export const ListEnvironments = endpoint({
  method: "GET",
  path: BASE,
  summary: "A project's environments",
  tag: TAG,
  security: SESSION_OR_BEARER,
  params: PROJECT_PARAM,
  responses: { 200: Schema.Struct({ environments: Schema.Array(EnvironmentView) }) },
  errors: [404],
})

export const CreateEnvironment = endpoint({
  method: "POST",
  path: BASE,
  summary: "Add an environment",
  description: "Write access.",
  tag: TAG,
  security: SESSION_OR_BEARER,
  params: PROJECT_PARAM,
  body: CreateEnvironmentBody,
  responses: { 201: Schema.Struct({ environment: EnvironmentView }) },
  errors: [403, 404, 409],
})

export const DeleteEnvironment = endpoint({
  method: "DELETE",
  path: `${BASE}/:env`,
  summary: "Delete an environment and its secrets",
  description: "Write access.",
  tag: TAG,
  security: SESSION_OR_BEARER,
  params: ENVIRONMENT_PARAMS,
  responses: { 200: Ok },
  errors: [403, 404],
})

export const mountEnvironments = (app: Hono, routes: SecretsRoutes): void => {
  const { handle } = routes
  route(app, ListEnvironments, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => listEnvironments(actor, c.req.param("slug") ?? "")),
    ),
  )
  route(app, CreateEnvironment, (c, { body }) =>
    handle(
      c,
      withActor(c, routes, (actor) =>
        Effect.flatMap(body, (input) => createEnvironment(actor, c.req.param("slug") ?? "", input)),
      ),
      (created) => c.json(created, 201),
    ),
  )
  route(app, DeleteEnvironment, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => deleteEnvironment(actor, c.req.param("slug") ?? "", c.req.param("env") ?? "")),
    ),
  )
}
