/**
 * The dashboard's platform endpoints (seed 000 §4, session required, tokens refused):
 * - `POST /api/_ui/v1/platforms` `{ name, kind? }`: 201 with the new, empty platform; 409 when the name is taken.
 *   Needs write rights on that platform, like any other change.
 * - `DELETE /api/_ui/v1/platforms/{platform}` and `DELETE /api/_ui/v1/platforms/{platform}/versions/{version}`:
 *   admin permission; 409 `{ error, blockedBy: [{ platform, version, extends }] }` while a schema still extends
 *   the target; history removed; audited.
 */
import { Platforms, Views } from "@coffer/schemas"
import { Effect, Schema } from "effect"
import type { Hono } from "hono"
import { decodeJson } from "../middleware/jsonBody.js"
import { actorOf, DASHBOARD_PREFIX, param, type SchemasRoutes } from "./context.js"

const CreatePlatformBody = Schema.Struct({ name: Schema.String, kind: Schema.optional(Schema.Unknown) })

export const mountDashboardPlatforms = (app: Hono, routes: SchemasRoutes): void => {
  const { handle } = routes

  app.post(`${DASHBOARD_PREFIX}/platforms`, (c) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        const body = yield* decodeJson(c, CreatePlatformBody)
        return yield* Platforms.createPlatform(actor, body)
      }),
      (platform) => c.json({ ok: true, platform: Views.platformDetail(platform) }, 201),
    ),
  )

  app.delete(`${DASHBOARD_PREFIX}/platforms/:platform`, (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) => Platforms.deletePlatform(actor, param(c, "platform"))),
      () => c.json({ ok: true }),
    ),
  )

  app.delete(`${DASHBOARD_PREFIX}/platforms/:platform/versions/:version`, (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) =>
        Platforms.deleteVersion(actor, param(c, "platform"), param(c, "version")),
      ),
      () => c.json({ ok: true }),
    ),
  )
}
