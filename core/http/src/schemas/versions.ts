/**
 * A platform's version list (seed 000 §4): `GET /api/{platform}/versions` (session or token) and
 * `POST /api/{platform}/versions` `{ version }` (session with write rights; the platform must exist, rule 3).
 */
import { Platforms } from "@coffer/schemas"
import { Effect, Schema } from "effect"
import type { Hono } from "hono"
import { decodeJson } from "../middleware/jsonBody.js"
import { actorOf, param, type SchemasRoutes } from "./context.js"

const VersionBody = Schema.Struct({ version: Schema.String })

export const mountVersions = (app: Hono, routes: SchemasRoutes): void => {
  const { handle } = routes

  app.get("/api/:platform/versions", (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) => Platforms.getPlatform(actor, param(c, "platform"))),
      (platform) => c.json(platform.versions),
    ),
  )

  app.post("/api/:platform/versions", (c) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        const { version } = yield* decodeJson(c, VersionBody)
        yield* Platforms.addVersion(actor, param(c, "platform"), version)
      }),
      () => c.json({ ok: true }, 201),
    ),
  )
}
