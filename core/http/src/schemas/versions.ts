/**
 * A platform's version list (seed 000 §4): `GET /api/{platform}/versions` (session or token) and
 * `POST /api/{platform}/versions` `{ version }` (session with write rights; the platform must exist, rule 3).
 *
 * Adding answers `{ ok: true }` as the seed has it, and beside it `reprocessed`: the schemas a `latest` or range
 * reference moved onto the new version. Added alone, that version has no schema yet and merges in as `{}`, so
 * their outputs lose what they inherited until its schema is saved; the answer names them rather than leaving it
 * to be found. Added with `content` (an extension of the seed's body), the version and its schema are saved in
 * one transaction, so they move onto that schema at once.
 */
import { MAX_VERSIONS, Platforms } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { Ok, SESSION, SESSION_OR_BEARER } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { actorOf, PLATFORM_PARAM, param, type SchemasRoutes, writerOf } from "./context.js"
import { Content, Version } from "./fields.js"

const VersionBody = Schema.Struct({
  version: Version,
  content: Schema.optionalKey(
    Content.annotate({
      description:
        "The new version's schema, saved with it in the same transaction as its first revision (the rules of " +
        "`PUT /api/{platform}/{version}`). Refused with 409 when the version exists already, and with 400 when it " +
        "cannot be saved; either way nothing is added",
    }),
  ),
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
  description:
    "The platform must exist. Session with write rights on the platform. Adding a version that exists already " +
    "changes nothing, unless `content` is sent with it: that is 409. A platform holds at most " +
    `${MAX_VERSIONS.toLocaleString("en-US")} versions: one more is refused with 400.`,
  tag: "Platforms",
  security: SESSION,
  params: PLATFORM_PARAM,
  body: VersionBody,
  responses: {
    201: Schema.Struct({
      ...Ok.fields,
      reprocessed: Schema.Array(Schema.String).annotate({
        description:
          "`platform/version` of each schema re-resolved because a `latest` or range reference now selects the " +
          "new version (without `content` it has no schema yet, so it merges in as an empty object), or because " +
          "the schema sent reaches it; empty when the version existed already",
      }),
    }),
  },
  errors: [403, 404, 409],
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
        const actor = yield* writerOf(c, routes)
        const { version, content } = yield* body
        return yield* Platforms.addVersion(actor, param(c, "platform"), version, content)
      }),
      ({ reprocessed }) => c.json({ ok: true, reprocessed }, 201),
    ),
  )
}
