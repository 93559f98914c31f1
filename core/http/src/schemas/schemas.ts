/**
 * One schema (seed 000 §4 and DESIGN.md "Saving a schema"): `GET /api/{platform}/{version}` (session or token; a
 * scoped token must cover every platform merged in) and `PUT /api/{platform}/{version}` `{ content }` (session
 * with write rights), which answers the saved schema and the dependents it re-processed.
 *
 * A read answers an `ETag`, and `If-None-Match` naming it is answered 304 without the body: CI jobs that poll a
 * schema cost almost nothing.
 *
 * `{version}` is matched as one path segment: `+` in it is literal, and `%2B` decodes to the same `+`.
 */
import { Schemas } from "@coffer/schemas"
import { Effect, Schema } from "effect"
import type { Hono } from "hono"
import { decodeJson } from "../middleware/jsonBody.js"
import { answerSerialized, serializeJson } from "../serializedJson.js"
import { actorOf, param, type SchemasRoutes } from "./context.js"

const SaveBody = Schema.Struct({ content: Schema.Unknown })

const idOf = (platform: string, version: string) => ({ platform, version })

export const mountSchemas = (app: Hono, routes: SchemasRoutes): void => {
  const { handle } = routes

  // Answered from bytes kept per schema, with an ETag; `If-None-Match` on it is a 304 (`../serializedJson.ts`).
  app.get("/api/:platform/:version", (c) =>
    handle(
      c,
      actorOf(c, routes).pipe(
        Effect.flatMap((actor) => Schemas.readSchema(actor, idOf(param(c, "platform"), param(c, "version")))),
        Effect.flatMap(serializeJson),
      ),
      (serialized) => answerSerialized(c, serialized),
    ),
  )

  app.put("/api/:platform/:version", (c) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* actorOf(c, routes)
        // A missing `content` is a 400 here; any present value goes to the use case, which wants a plain object.
        const { content } = yield* decodeJson(c, SaveBody)
        return yield* Schemas.saveSchema(actor, idOf(param(c, "platform"), param(c, "version")), content)
      }),
      (saved) => c.json({ ok: true, schema: saved.schema, reprocessed: saved.reprocessed }),
    ),
  )
}
