/**
 * A platform's version list (seed 000 §4): `GET /api/{platform}/versions` (session or token) and
 * `POST /api/{platform}/versions` `{ version }` (session with write rights; the platform must exist, rule 3).
 */
import { Platforms } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { Ok, SESSION_OR_BEARER } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { actorOf, PLATFORM_PARAM, param, type SchemasRoutes } from "./context.js"

const VersionBody = Schema.Struct({
  version: Schema.String.annotate({
    description:
      "A semantic version, build metadata allowed; at most 128 characters of letters, digits, `.`, `-`, `+`; " +
      "never trimmed",
  }),
})

export const ListVersions = endpoint({
  method: "GET",
  path: "/api/:platform/versions",
  summary: "List a platform's versions",
  tag: "Platforms",
  security: SESSION_OR_BEARER,
  params: PLATFORM_PARAM,
  responses: { 200: Schema.Array(Schema.String) },
  errors: [404],
})

export const AddVersion = endpoint({
  method: "POST",
  path: "/api/:platform/versions",
  summary: "Add a version",
  description: "The platform must exist. Session with write rights on the platform.",
  tag: "Platforms",
  security: SESSION_OR_BEARER,
  params: PLATFORM_PARAM,
  body: VersionBody,
  responses: { 201: Ok },
  errors: [403, 404],
})

export const mountVersions = (app: Hono, routes: SchemasRoutes): void => {
  const { handle } = routes

  route(app, ListVersions, (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) => Platforms.getPlatform(actor, param(c, "platform"))),
      (platform) => c.json(platform.versions),
    ),
  )

  route(app, AddVersion, (c, { body }) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        const { version } = yield* body
        yield* Platforms.addVersion(actor, param(c, "platform"), version)
      }),
      () => c.json({ ok: true }, 201),
    ),
  )
}
