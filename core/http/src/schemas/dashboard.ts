/**
 * The dashboard's platform endpoints (seed 000 §4, session required, tokens refused):
 * - `GET /api/_ui/v1/platforms`: every platform with its `kind` (`custom` for records without one, as the
 *   dashboard shows them, seed 000 §2) and its versions.
 * - `PATCH /api/_ui/v1/platforms/{platform}` `{ kind }`: changes the kind, with the write rights of any other
 *   change to the platform; audited as `platform.kind`. 200 with the platform.
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
// Checked by the use case, which names the allowed kinds in its message.
const KindBody = Schema.Struct({ kind: Schema.Unknown })

export const mountDashboardPlatforms = (app: Hono, routes: SchemasRoutes): void => {
  const { handle } = routes

  app.get(`${DASHBOARD_PREFIX}/platforms`, (c) =>
    handle(c, Effect.flatMap(actorOf(c, routes), Platforms.listPlatforms), (platforms) =>
      c.json(platforms.map(Views.dashboardPlatform)),
    ),
  )

  app.patch(`${DASHBOARD_PREFIX}/platforms/:platform`, (c) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        const { kind } = yield* decodeJson(c, KindBody)
        return yield* Platforms.changeKind(actor, param(c, "platform"), kind)
      }),
      (platform) => c.json({ ok: true, platform: Views.dashboardPlatform(platform) }),
    ),
  )

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
