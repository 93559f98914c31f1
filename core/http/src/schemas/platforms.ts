/**
 * The platform data endpoints (seed 000 §4): `GET /api/schemas`, `GET` and `POST /api/{platform}`. Readable with
 * a session or a token (a token sees only its platforms); `POST` needs a session with write rights on the
 * platform, and the admin permission when its `versions` list leaves existing versions out (rule 2).
 */
import { Platforms, Views } from "@coffer/schemas"
import { Effect, Schema } from "effect"
import type { Hono } from "hono"
import { decodeJson } from "../middleware/jsonBody.js"
import { actorOf, param, type SchemasRoutes } from "./context.js"

const PlatformBody = Schema.Struct({
  name: Schema.String,
  versions: Schema.Array(Schema.String),
  // Checked by the use case, which names the allowed kinds in its message.
  kind: Schema.optional(Schema.Unknown),
})

export const mountPlatforms = (app: Hono, routes: SchemasRoutes): void => {
  const { handle } = routes

  app.get("/api/schemas", (c) =>
    handle(c, Effect.flatMap(actorOf(c, routes), Platforms.listPlatforms), (platforms) =>
      c.json(platforms.map(Views.platformSummary)),
    ),
  )

  app.get("/api/:platform", (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) => Platforms.getPlatform(actor, param(c, "platform"))),
      (platform) => c.json(Views.platformDetail(platform)),
    ),
  )

  app.post("/api/:platform", (c) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        const body = yield* decodeJson(c, PlatformBody)
        yield* Platforms.putPlatform(actor, param(c, "platform"), body)
      }),
      () => c.json({ ok: true }, 201),
    ),
  )
}
