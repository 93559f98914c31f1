/**
 * The platform data endpoints (seed 000 §4): `GET /api/schemas`, `GET` and `POST /api/{platform}`. Readable with
 * a session or a token (a token sees only its platforms); `POST` needs a session with write rights on the
 * platform, and the admin permission when its `versions` list leaves existing versions out (rule 2).
 */
import { MAX_VERSIONS, Platforms, Views } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { DeletionBlockedBody } from "../errors.js"
import { Ok, SESSION, SESSION_OR_BEARER } from "../openapi/common.js"
import { documented } from "../openapi/documented.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { actorOf, PLATFORM_PARAM, param, type SchemasRoutes, writerOf } from "./context.js"
import { Kind, PlatformName, Version } from "./fields.js"

const PlatformBody = Schema.Struct({
  name: PlatformName,
  versions: documented(Schema.Array(Version), { maxItems: MAX_VERSIONS }).annotate({
    description: `Every version the platform keeps: at most ${MAX_VERSIONS.toLocaleString("en-US")}`,
  }),
  kind: Schema.optionalKey(Kind),
})

export const ListPlatforms = endpoint({
  method: "GET",
  path: "/api/schemas",
  summary: "List platforms",
  description: "Every platform the caller may read (a scoped token sees only its platforms).",
  tag: "Platforms",
  security: SESSION_OR_BEARER,
  responses: { 200: Schema.Array(Views.PlatformSummary) },
})

export const GetPlatform = endpoint({
  method: "GET",
  path: "/api/:platform",
  summary: "Get a platform",
  tag: "Platforms",
  security: SESSION_OR_BEARER,
  params: PLATFORM_PARAM,
  responses: { 200: Views.PlatformDetail },
  errors: [404],
})

export const PutPlatform = endpoint({
  method: "POST",
  path: "/api/:platform",
  summary: "Create or update a platform",
  description:
    "Omitting `kind` keeps the existing kind. A `versions` list that leaves existing versions out deletes them " +
    "(admin permission; 409 while another platform's schema extends them). Session with write rights.",
  tag: "Platforms",
  security: SESSION,
  params: PLATFORM_PARAM,
  body: PlatformBody,
  responses: { 201: Ok },
  errors: [403, [409, DeletionBlockedBody]],
})

export const mountPlatforms = (app: Hono, routes: SchemasRoutes): void => {
  const { handle } = routes

  route(app, ListPlatforms, (c) =>
    handle(c, Effect.flatMap(actorOf(c, routes), Platforms.listPlatforms), (platforms) =>
      c.json(platforms.map(Views.platformSummary)),
    ),
  )

  route(app, GetPlatform, (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) => Platforms.getPlatform(actor, param(c, "platform"))),
      (platform) => c.json(Views.platformDetail(platform)),
    ),
  )

  route(app, PutPlatform, (c, { body }) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* writerOf(c, routes)
        yield* Platforms.putPlatform(actor, param(c, "platform"), yield* body)
      }),
      () => c.json({ ok: true }, 201),
    ),
  )
}
