/**
 * A version's schema seen from the dashboard (session only, tokens refused), beyond its content and output:
 * - `GET /api/_ui/v1/platforms/{platform}/versions/{version}/revisions?limit=&before=`: its history, newest first,
 *   `{ revisions: [{ revision, savedAt, savedBy }], next }` (`next`: the `before` of the following page, or null);
 * - `GET …/revisions/{revision}`: one revision `{ revision, savedAt, savedBy, content, output }`;
 * - `GET …/ancestors`: `{ ancestors: [{ platform, version, parents: [{ reference, platform, version }] }],
 *   provenance: [{ path, source }] }`, the schema first, then what it inherits from up to the roots, and the
 *   schema (`platform/version`) each value of its output comes from;
 * - `GET …/dependents`: `{ dependents: [{ platform, version, extends }] }`, every schema that extends it directly
 *   or transitively, in the order a save of it re-processes them.
 * Each answers 404 when the platform or version does not exist.
 */
import { BadRequest } from "@coffer/kernel"
import { History, Lineage, Views } from "@coffer/schemas"
import { Effect } from "effect"
import type { Context, Hono } from "hono"
import { actorOf, DASHBOARD_PREFIX, param, type SchemasRoutes } from "./context.js"

const VERSION_PATH = `${DASHBOARD_PREFIX}/platforms/:platform/versions/:version`

const idOf = (c: Context) => ({ platform: param(c, "platform"), version: param(c, "version") })

/** A positive integer from the query or path: digits only, so that `1e2` or `10abc` are refused, not half-read. */
const integerOf = (raw: string | undefined, name: string): Effect.Effect<number | undefined, BadRequest> => {
  if (raw === undefined) return Effect.succeed(undefined)
  return /^\d{1,15}$/.test(raw)
    ? Effect.succeed(Number(raw))
    : Effect.fail(new BadRequest({ message: `${name} must be a positive integer` }))
}

export const mountLineage = (app: Hono, routes: SchemasRoutes): void => {
  const { handle } = routes

  app.get(`${VERSION_PATH}/revisions`, (c) =>
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

  app.get(`${VERSION_PATH}/revisions/:revision`, (c) =>
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

  app.get(`${VERSION_PATH}/ancestors`, (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) => Lineage.ancestorsOf(actor, idOf(c))),
      (found) => c.json(Views.ancestry(found)),
    ),
  )

  app.get(`${VERSION_PATH}/dependents`, (c) =>
    handle(
      c,
      Effect.flatMap(actorOf(c, routes), (actor) => Lineage.dependentsOf(actor, idOf(c))),
      (dependents) =>
        c.json({
          dependents: dependents.map((dependent) => ({
            platform: dependent.platform,
            version: dependent.version,
            extends: dependent.extends,
          })),
        }),
    ),
  )
}
