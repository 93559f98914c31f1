/**
 * A version's schema seen from the dashboard (session only, tokens refused):
 * - `GET /api/_ui/v1/platforms/{platform}/versions/{version}`: the schema to edit, `{ content, dependencies, output,
 *   revision }`, the number of the revision read with it, which a save names as `expectedRevision` (404 when
 *   nothing is saved yet: a save then names 0). The seed's `GET /api/{platform}/{version}` keeps its shape.
 * - `GET /api/_ui/v1/platforms/{platform}/versions/{version}/revisions?limit=&before=`: its history, newest first,
 *   `{ revisions: [{ revision, savedAt, savedBy, restoredFrom }], next }` (`next`: the `before` of the following
 *   page, or null);
 * - `GET …/revisions/{revision}`: one revision `{ revision, savedAt, savedBy, restoredFrom, content, output }`
 *   (`restoredFrom`: the revision a restore brought back, null for any other save);
 * - `POST …/revisions/{revision}/restore` `{ expectedRevision? }` (write rights): that revision's content saved
 *   again as the next revision, which records it; answered, refused and checked as `PUT /api/{platform}/{version}`;
 * - `GET …/ancestors`: `{ ancestors: [{ platform, version, parents: [{ reference, platform, version }], saved }],
 *   provenance: [{ path, source }] }`, the schema first, then what it inherits from up to the roots (`saved`
 *   false for a version whose schema was never saved, which merges in as `{}`), and the schema
 *   (`platform/version`) each value of its output comes from;
 * - `GET …/dependents`: `{ dependents: [{ platform, version, extends }] }`, every schema that extends it directly
 *   or transitively, in the order a save of it re-processes them.
 * Each answers 404 when the platform or version does not exist.
 */
import { parseWholeNumber, type WholeNumberRange } from "@coffer/kernel"
import { History, Lineage, Schemas, Views } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Context, Hono } from "hono"
import { SchemaSavedMeanwhileBody } from "../errors.js"
import { PLAIN_NUMBER, SESSION } from "../openapi/common.js"
import { endpoint, wholeNumberParameter } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { actorOf, DASHBOARD_PREFIX, param, type SchemasRoutes, VERSION_PARAMS } from "./context.js"
import { ExpectedRevision, SavedSchema, savedSchema } from "./schemas.js"

const VERSION_PATH = `${DASHBOARD_PREFIX}/platforms/:platform/versions/:version`

const idOf = (c: Context) => ({ platform: param(c, "platform"), version: param(c, "version") })

/** Revision numbers, in the query (`before`) and the path: from 1 on. */
const REVISIONS = { min: 1, max: Number.MAX_SAFE_INTEGER }

/**
 * A number from the query or path, by the one rule of both services (`parseWholeNumber`): plain digits, so that
 * `1e2`, `10abc` or `010` are refused, not half-read.
 */
const wholeNumberOf = (raw: string | undefined, name: string, range: WholeNumberRange) =>
  Effect.fromResult(parseWholeNumber(name, raw, range))

const TAG = "Dashboard"
const Next = Schema.NullOr(Schema.Int).annotate({ description: "The `before` of the next page; null at the end" })

export const GetEditableSchema = endpoint({
  method: "GET",
  path: VERSION_PATH,
  summary: "Read a schema to edit, with its revision",
  description:
    "The schema as `GET /api/{platform}/{version}` answers it, read with the number of its latest revision: a " +
    "save of content edited from it sends that number as `expectedRevision`. 404 when nothing is saved yet (a " +
    "save then sends `0`).",
  tag: TAG,
  security: SESSION,
  params: VERSION_PARAMS,
  responses: { 200: Views.EditableSchemaView },
  errors: [404],
})

export const ListRevisions = endpoint({
  method: "GET",
  path: `${VERSION_PATH}/revisions`,
  summary: "A schema's history, newest first",
  tag: TAG,
  security: SESSION,
  params: VERSION_PARAMS,
  query: {
    limit: {
      schema: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: History.MAX_REVISION_PAGE })),
      description: `Revisions per page, default ${History.DEFAULT_REVISION_PAGE}; ${PLAIN_NUMBER}`,
    },
    before: {
      schema: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
      description: `The \`next\` of the previous page; ${PLAIN_NUMBER}`,
    },
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
  params: { ...VERSION_PARAMS, revision: wholeNumberParameter("The revision number") },
  responses: { 200: Views.RevisionDetailView },
  errors: [400, 404],
})

export const RestoreRevision = endpoint({
  method: "POST",
  path: `${VERSION_PATH}/revisions/:revision/restore`,
  summary: "Restore a revision of a schema",
  description:
    "Saves the revision's content again as the schema's next revision, whose `restoredFrom` names the one brought " +
    "back; the revision itself and every later one stay in the history. It is a save in every other way: the " +
    "content is resolved against its bases as they are now (an `@extends` that no longer resolves is refused as " +
    "its save would be, and nothing changes), dependents are re-processed, and `expectedRevision` makes it land " +
    "only on that revision (409 otherwise). The body may be left out.",
  tag: TAG,
  security: SESSION,
  params: { ...VERSION_PARAMS, revision: wholeNumberParameter("The revision to bring back") },
  body: Schema.Struct({ expectedRevision: ExpectedRevision }),
  bodyOptional: true,
  responses: { 200: SavedSchema },
  errors: [400, 403, 404, [409, SchemaSavedMeanwhileBody]],
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

  route(app, GetEditableSchema, (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) => Schemas.readForEditing(actor, idOf(c))),
      (read) => c.json({ ...read.schema, revision: read.revision }),
    ),
  )

  route(app, ListRevisions, (c) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        const limit = yield* wholeNumberOf(c.req.query("limit"), "limit", { min: 1, max: History.MAX_REVISION_PAGE })
        const before = yield* wholeNumberOf(c.req.query("before"), "before", REVISIONS)
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
        const revision = yield* wholeNumberOf(param(c, "revision"), "revision", REVISIONS)
        return yield* History.getRevision(actor, idOf(c), revision ?? 0)
      }),
      (revision) => c.json(Views.revisionDetail(revision)),
    ),
  )

  route(app, RestoreRevision, (c, { body }) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        const revision = yield* wholeNumberOf(param(c, "revision"), "revision", REVISIONS)
        const { expectedRevision } = yield* body
        return yield* Schemas.restoreRevision(actor, idOf(c), revision ?? 0, { expectedRevision })
      }),
      (saved) => c.json(savedSchema(saved)),
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
