/**
 * The dashboard's platform endpoints (seed 000 §4, session required, tokens refused):
 * - `GET /api/_ui/v1/platforms`: every platform with its `kind` (`custom` for records without one, as the
 *   dashboard shows them, seed 000 §2) and its versions.
 * - `GET /api/_ui/v1/platforms/{platform}`: the platform as listed, with `schemas`: per version, whether a schema
 *   is saved and, when one is, its `@extends` references, latest revision and last save (`savedAt`, `savedBy`);
 *   never a content. What the platform page shows, in one request and one store call (no request per version).
 *   Readable by whoever may read the platform (`GET /api/{platform}`); 404 when missing.
 * - `PATCH /api/_ui/v1/platforms/{platform}` `{ kind }`: changes the kind, with the write rights of any other
 *   change to the platform; audited as `platform.kind`. 200 with the platform.
 * - `POST /api/_ui/v1/platforms` `{ name, kind? }`: 201 with the new, empty platform; 409 when the name is taken.
 *   Needs write rights on that platform, like any other change.
 * - `DELETE /api/_ui/v1/platforms/{platform}` and `DELETE /api/_ui/v1/platforms/{platform}/versions/{version}`:
 *   admin permission; 409 `{ error, blockedBy: [{ platform, version, extends }] }` while a schema still extends
 *   the target; history removed; audited.
 */
import { Platforms, Views } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { DeletionBlockedBody } from "../errors.js"
import { Ok, SESSION } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { actorOf, DASHBOARD_PREFIX, PLATFORM_PARAM, param, type SchemasRoutes, VERSION_PARAMS } from "./context.js"
import { Kind, PlatformName } from "./fields.js"

const CreatePlatformBody = Schema.Struct({ name: PlatformName, kind: Schema.optionalKey(Kind) })
const KindBody = Schema.Struct({ kind: Kind })
const PlatformChanged = Schema.Struct({ ...Ok.fields, platform: Views.DashboardPlatform })

const TAG = "Dashboard"

export const ListDashboardPlatforms = endpoint({
  method: "GET",
  path: `${DASHBOARD_PREFIX}/platforms`,
  summary: "List platforms with their kinds",
  tag: TAG,
  security: SESSION,
  responses: { 200: Schema.Array(Views.DashboardPlatform) },
  errors: [403],
})

export const GetDashboardPlatform = endpoint({
  method: "GET",
  path: `${DASHBOARD_PREFIX}/platforms/:platform`,
  summary: "Read a platform with a summary of each version's schema",
  description:
    "Per version: whether a schema is saved, its `@extends` references as written, its latest revision and its last save; never contents.",
  tag: TAG,
  security: SESSION,
  params: PLATFORM_PARAM,
  responses: { 200: Views.PlatformOverviewView },
  errors: [403, 404],
})

export const ChangeKind = endpoint({
  method: "PATCH",
  path: `${DASHBOARD_PREFIX}/platforms/:platform`,
  summary: "Change a platform's kind",
  description: "Write rights on the platform; audited as `platform.kind`.",
  tag: TAG,
  security: SESSION,
  params: PLATFORM_PARAM,
  body: KindBody,
  responses: { 200: PlatformChanged },
  errors: [403, 404],
})

export const CreatePlatform = endpoint({
  method: "POST",
  path: `${DASHBOARD_PREFIX}/platforms`,
  summary: "Create a platform with no versions",
  tag: TAG,
  security: SESSION,
  body: CreatePlatformBody,
  responses: { 201: Schema.Struct({ ...Ok.fields, platform: Views.PlatformDetail }) },
  errors: [403, 409],
})

export const DeletePlatform = endpoint({
  method: "DELETE",
  path: `${DASHBOARD_PREFIX}/platforms/:platform`,
  summary: "Delete a platform, its versions and history",
  description: "Admin permission; refused with 409 while a schema of another platform extends it. Audited.",
  tag: TAG,
  security: SESSION,
  params: PLATFORM_PARAM,
  responses: { 200: Ok },
  errors: [403, 404, [409, DeletionBlockedBody]],
})

export const DeleteVersion = endpoint({
  method: "DELETE",
  path: `${DASHBOARD_PREFIX}/platforms/:platform/versions/:version`,
  summary: "Delete one version and its history",
  description: "Admin permission; refused with 409 while a schema of another platform extends it. Audited.",
  tag: TAG,
  security: SESSION,
  params: VERSION_PARAMS,
  responses: { 200: Ok },
  errors: [403, 404, [409, DeletionBlockedBody]],
})

export const mountDashboardPlatforms = (app: Hono, routes: SchemasRoutes): void => {
  const { handle } = routes

  route(app, ListDashboardPlatforms, (c) =>
    handle(c, Effect.flatMap(actorOf(c, routes), Platforms.listPlatforms), (platforms) =>
      c.json(platforms.map(Views.dashboardPlatform)),
    ),
  )

  route(app, GetDashboardPlatform, (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) => Platforms.getOverview(actor, param(c, "platform"))),
      (overview) => c.json(Views.platformOverview(overview)),
    ),
  )

  route(app, ChangeKind, (c, { body }) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        const { kind } = yield* body
        return yield* Platforms.changeKind(actor, param(c, "platform"), kind)
      }),
      (platform) => c.json({ ok: true, platform: Views.dashboardPlatform(platform) }),
    ),
  )

  route(app, CreatePlatform, (c, { body }) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        return yield* Platforms.createPlatform(actor, yield* body)
      }),
      (platform) => c.json({ ok: true, platform: Views.platformDetail(platform) }, 201),
    ),
  )

  route(app, DeletePlatform, (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) => Platforms.deletePlatform(actor, param(c, "platform"))),
      () => c.json({ ok: true }),
    ),
  )

  route(app, DeleteVersion, (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) =>
        Platforms.deleteVersion(actor, param(c, "platform"), param(c, "version")),
      ),
      () => c.json({ ok: true }),
    ),
  )
}
