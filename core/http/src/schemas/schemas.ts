/**
 * One schema (seed 000 §4 and DESIGN.md "Saving a schema"): `GET /api/{platform}/{version}` (session or token; a
 * scoped token must cover every platform merged in) and `PUT /api/{platform}/{version}` `{ content }` (session
 * with write rights), which answers the saved schema, the revision it was stored as and the dependents it
 * re-processed. A save may name the revision its content was edited from (`expectedRevision`, 0: nothing saved
 * yet): it then lands only on top of that revision, or answers 409 `{ error, revision }` with nothing written.
 *
 * A read answers an `ETag`, and `If-None-Match` naming it is answered 304 without the body: CI jobs that poll a
 * schema cost almost nothing.
 *
 * `{version}` is matched as one path segment: `+` in it is literal, and `%2B` decodes to the same `+`.
 */
import { Schemas, Views } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { SchemaSavedMeanwhileBody } from "../errors.js"
import { Ok, SESSION, SESSION_OR_BEARER } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { answerSerialized, serializeJson } from "../serializedJson.js"
import { actorOf, param, type SchemasRoutes, VERSION_PARAMS, writerOf } from "./context.js"
import { Content } from "./fields.js"

/**
 * `expectedRevision`: a whole number from 0, exactly representable (a safe integer, `Schema.isInt`), in the Schema
 * that decodes the body so that the document says what is taken; the use case checks it again for other callers.
 */
const expectedRevisionRule = {
  message: `Expected a whole number from 0 to ${Number.MAX_SAFE_INTEGER}: the revision the content was edited from, 0 for none`,
}
/** Shared with the dashboard's restore (`lineage.ts`), which is a save of an earlier revision's content. */
export const ExpectedRevision = Schema.optionalKey(
  Schema.Number.check(Schema.isInt(expectedRevisionRule), Schema.isGreaterThanOrEqualTo(0, expectedRevisionRule)),
).annotate({
  description:
    "Check-and-set: the revision the content was edited from (`revision` of the dashboard's read, or of a " +
    "previous save's answer), `0` when nothing was saved yet. The save lands only if the schema is still at " +
    "that revision; otherwise 409 with the revision it is at now, and nothing is written. Left out, the save " +
    "lands whatever the revision.",
})

const SaveBody = Schema.Struct({
  content: Content.annotate({
    description:
      "A plain JSON object; `@extends` (a `platform/spec` string or an array of them, at most 32, none twice) " +
      "names what it inherits from",
  }),
  expectedRevision: ExpectedRevision,
})

/** A save's answer: the schema saved, the revision it was stored as, and every dependent re-processed. */
export const SavedSchema = Schema.Struct({
  ...Ok.fields,
  schema: Views.SchemaView,
  revision: Schema.Int.annotate({ description: "The revision this save was stored as" }),
  reprocessed: Schema.Array(Schema.String).annotate({ description: "`platform/version` of each dependent" }),
})

export const savedSchema = (saved: Schemas.SaveResult): typeof SavedSchema.Type => ({
  ok: true,
  schema: saved.schema,
  revision: saved.revision,
  reprocessed: saved.reprocessed,
})

export const GetSchema = endpoint({
  method: "GET",
  path: "/api/:platform/:version",
  summary: "Read a schema",
  description:
    "Answers an `ETag`; a request whose `If-None-Match` names it is answered 304 without a body. A scoped token " +
    "must cover every platform merged into the output (403 otherwise).",
  tag: "Schemas",
  security: SESSION_OR_BEARER,
  params: VERSION_PARAMS,
  responses: {
    200: { description: "The schema", schema: Views.SchemaView, headers: { ETag: "The tag of these bytes" } },
    304: { description: "Not modified: the `If-None-Match` tag is current", headers: { ETag: "The current tag" } },
  },
  errors: [403, 404],
})

export const SaveSchema = endpoint({
  method: "PUT",
  path: "/api/:platform/:version",
  summary: "Save a schema",
  description:
    "The version must exist. Every schema that depends on this one is re-resolved in the same transaction and " +
    "listed in `reprocessed`. Limits: inheritance at most 1,000 deep, a resolved output at most 4 MiB. With " +
    "`expectedRevision`, the save lands only on that revision (`0`: only when nothing is saved yet), checked in " +
    "the transaction that writes, so a save made since the content was read is never replaced unseen: otherwise " +
    "409 with the revision the schema is at now, nothing written. Of concurrent saves with the same " +
    "`expectedRevision`, one lands and the others answer 409.",
  tag: "Schemas",
  security: SESSION,
  params: VERSION_PARAMS,
  body: SaveBody,
  responses: { 200: SavedSchema },
  errors: [403, 404, [409, SchemaSavedMeanwhileBody]],
})

export const mountSchemas = (app: Hono, routes: SchemasRoutes): void => {
  const { handle } = routes
  const idOf = (platform: string, version: string) => ({ platform, version })

  // Answered from bytes kept per schema, with an ETag; `If-None-Match` on it is a 304 (`../serializedJson.ts`). The
  // hottest route of all (issue 10): its answer carries its headers as a plain record (`presetResponse`).
  route(
    app,
    GetSchema,
    (c) =>
      handle(
        c,
        actorOf(c, routes).pipe(
          Effect.flatMap((actor) => Schemas.readSchema(actor, idOf(param(c, "platform"), param(c, "version")))),
          Effect.flatMap(serializeJson),
        ),
        (serialized) => answerSerialized(c, serialized),
      ),
    [],
    { presetResponse: true },
  )

  route(app, SaveSchema, (c, { body }) =>
    handle(
      c,
      Effect.gen(function* () {
        const actor = yield* writerOf(c, routes)
        // A missing `content` is a 400 here; any present value goes to the use case, which wants a plain object.
        const { content, expectedRevision } = yield* body
        return yield* Schemas.saveSchema(actor, idOf(param(c, "platform"), param(c, "version")), content, {
          expectedRevision,
        })
      }),
      (saved) => c.json(savedSchema(saved)),
    ),
  )
}
