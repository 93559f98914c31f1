/**
 * A version's schema seen from the dashboard (session only, tokens refused), beyond its content and output:
 * - `GET /api/_ui/v1/platforms/{platform}/versions/{version}/revisions?limit=&before=`: its history, newest first,
 *   `{ revisions: [{ revision, savedAt, savedBy }], next }` (`next`: the `before` of the following page, or null);
 * - `GET …/revisions/{revision}`: one revision `{ revision, savedAt, savedBy, content, output }`;
 * - `GET …/ancestors`: `{ ancestors: [{ platform, version, parents: [{ reference, platform, version }], saved }],
 *   provenance: [{ path, source }] }`, the schema first, then what it inherits from up to the roots (`saved`
 *   false for a version whose schema was never saved, which merges in as `{}`), and the schema
 *   (`platform/version`) each value of its output comes from;
 * - `GET …/dependents`: `{ dependents: [{ platform, version, extends }] }`, every schema that extends it directly
 *   or transitively, in the order a save of it re-processes them.
 * Each answers 404 when the platform or version does not exist.
 */
import { BadRequest } from "@coffer/kernel"
import { History, Lineage, Views } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Context, Hono } from "hono"
import { SESSION } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { actorOf, DASHBOARD_PREFIX, param, type SchemasRoutes, VERSION_PARAMS } from "./context.js"

const VERSION_PATH = `${DASHBOARD_PREFIX}/platforms/:platform/versions/:version`

const idOf = (c: Context) => ({ platform: param(c, "platform"), version: param(c, "version") })

/** A positive integer from the query or path: digits only, so that `1e2` or `10abc` are refused, not half-read. */
const integerOf = (raw: string | undefined, name: string): Effect.Effect<number | undefined, BadRequest> => {
  if (raw === undefined) return Effect.succeed(undefined)
  return /^\d{1,15}$/.test(raw)
    ? Effect.succeed(Number(raw))
    : Effect.fail(new BadRequest({ message: `${name} must be a positive integer` }))
}

const TAG = "Dashboard"
const Next = Schema.NullOr(Schema.Int).annotate({ description: "The `before` of the next page; null at the end" })

export const ListRevisions = endpoint({
  method: "GET",
  path: `${VERSION_PATH}/revisions`,
  summary: "A schema's history, newest first",
  tag: TAG,
  security: SESSION,
  params: VERSION_PARAMS,
  query: {
    limit: { schema: Schema.Int, description: "Revisions per page" },
    before: { schema: Schema.Int, description: "The `next` of the previous page" },
  },
  responses: {
    200: Schema.Struct({
      revisions: Schema.Array(Views.RevisionSummaryView),
      next: Next,
    }),
  },
  errors: [400, 404],
})

export const GetRevision = endpoint({
  method: "GET",
  path: `${VERSION_PATH}/revisions/:revision`,
  summary: "One revision of a schema",
  tag: TAG,
  security: SESSION,
  params: { ...VERSION_PARAMS, revision: "The revision number" },
  responses: { 200: Views.RevisionDetailView },
  errors: [400, 404],
})

export const GetAncestors = endpoint({
  method: "GET",
  path: `${VERSION_PATH}/ancestors`,
  summary: "What a schema inherits from, and where each output value comes from",
  tag: TAG,
  security: SESSION,
  params: VERSION_PARAMS,
  responses: { 200: Views.AncestryView },
  errors: [400, 404],
})

export const GetDependents = endpoint({
  method: "GET",
  path: `${VERSION_PATH}/dependents`,
  summary: "Every schema that extends this one, in re-processing order",
  tag: TAG,
  security: SESSION,
  params: VERSION_PARAMS,
  responses: { 200: Schema.Struct({ dependents: Schema.Array(Views.DependentView) }) },
  errors: [400, 404],
})

export const mountLineage = (app: Hono, routes: SchemasRoutes): void => {
  const { handle } = routes

  route(app, ListRevisions, (c) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        const limit = yield* integerOf(c.req.query("limit"), "limit")
        const before = yield* integerOf(c.req.query("before"), "before")
        return yield* History.listRevisions(actor, idOf(c), { limit, before })
      }),
      (page) => c.json({ revisions: page.revisions.map(Views.revisionSummary), next: page.next ?? null }),
    ),
  )

  route(app, GetRevision, (c) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        const revision = yield* integerOf(param(c, "revision"), "revision")
        return yield* History.getRevision(actor, idOf(c), revision ?? 0)
      }),
      (revision) => c.json(Views.revisionDetail(revision)),
    ),
  )

  route(app, GetAncestors, (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) => Lineage.ancestorsOf(actor, idOf(c))),
      (found) => c.json(Views.ancestry(found)),
    ),
  )

  route(app, GetDependents, (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) => Lineage.dependentsOf(actor, idOf(c))),
      (dependents) => c.json({ dependents: dependents.map(Views.dependent) }),
    ),
  )
}
