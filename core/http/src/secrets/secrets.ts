/**
 * Secrets, their history and the exports (seed 001 §4 "Secrets", "Secret history"). The two export paths,
 * `/.env` and `/json`, are registered before `/:key`, so they win: a secret whose key is `.env` or `json` is
 * listed, exported, deleted and read through `/versions/:n` like any other, but `GET` of its own path is the export.
 */
import {
  deleteSecret,
  exportDotenv,
  exportJson,
  getSecret,
  getVersion,
  listSecrets,
  listVersions,
  restoreVersion,
  SECRET_VALUE_MAX_BYTES,
  SecretListItem,
  SecretView,
  setSecret,
  VersionListItem,
  VersionView,
} from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Context, Hono } from "hono"
import { SecretWriteConflictBody } from "../errors.js"
import { answerJson } from "../middleware/presetHeaders.js"
import { Ok, PLAIN_NUMBER, SESSION_OR_BEARER } from "../openapi/common.js"
import { endpoint, wholeNumberParameter } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { ENVIRONMENT_PARAMS, SECRET_PARAMS, type SecretsRoutes, withActor, withValueReader } from "./context.js"
import { SECRET_KEY_RULE, SecretKey } from "./fields.js"

/**
 * `expectedVersion`: a whole number from 0, exactly representable (a safe integer), in the Schema that decodes the
 * body so that the document says what is taken; the use case checks it again for callers that come another way.
 */
const expectedVersionRule = {
  message: `Expected a whole number from 0 to ${Number.MAX_SAFE_INTEGER}: the version the secret is at, 0 for none`,
}
const SetSecretBody = Schema.Struct({
  key: SecretKey.annotate({
    description:
      `${SECRET_KEY_RULE}. ` +
      "A secret may be named `json` or `.env`, but `GET …/secrets/json` and `GET …/secrets/.env` are the " +
      "environment's exports: read such a secret through `GET …/secrets/{key}/versions/{n}`, its version from the list",
  }),
  value: Schema.String.annotate({
    description: `Any string, the empty one included; at most ${SECRET_VALUE_MAX_BYTES} bytes of UTF-8 (413 beyond)`,
  }),
  expectedVersion: Schema.optionalKey(
    Schema.Number.check(Schema.isInt(expectedVersionRule), Schema.isGreaterThanOrEqualTo(0, expectedVersionRule)),
  ).annotate({
    description:
      "Check-and-set: write only if the secret is at this version now, `0` only if the key does not exist yet; " +
      "otherwise 409 and nothing is written. Left out, the value is written whatever the version.",
  }),
})

/** `attachment; filename="<env>.env"`; characters that would break the quoted string are replaced. */
export const attachment = (filename: string) => `attachment; filename="${filename.replace(/["\\\r\n]/g, "_")}"`

const TAG = "Secrets"
const BASE = "/api/projects/:slug/environments/:env/secrets"
const VERSION_PARAMS = { ...SECRET_PARAMS, n: wholeNumberParameter("The version number") }
const VALUE_READ = "Audited. A session request that the browser marks `Sec-Fetch-Site: cross-site` is refused with 403."
const Written = (action: string) =>
  Schema.Struct({ ok: Schema.Literal(true), action: Schema.Literal(action), version: Schema.Int })

export const ListSecrets = endpoint({
  method: "GET",
  path: BASE,
  summary: "An environment's secrets, sorted by key, without values",
  tag: TAG,
  security: SESSION_OR_BEARER,
  params: ENVIRONMENT_PARAMS,
  responses: { 200: Schema.Struct({ secrets: Schema.Array(SecretListItem) }) },
  errors: [404],
})

export const SetSecret = endpoint({
  method: "POST",
  path: BASE,
  summary: "Set a secret",
  description:
    "A new key is version 1 (201); an existing key gets its next version (200). Write access. With " +
    "`expectedVersion`, the write lands only on that version (`0`: only as a new key), so a change made since the " +
    "caller read the secret is never replaced unseen: otherwise 409 with the version it is at now, nothing written. " +
    "Of concurrent writes with the same `expectedVersion`, one succeeds and the others answer 409.",
  tag: TAG,
  security: SESSION_OR_BEARER,
  params: ENVIRONMENT_PARAMS,
  body: SetSecretBody,
  responses: { 201: Written("created"), 200: Written("updated") },
  errors: [403, 404, [409, SecretWriteConflictBody]],
})

export const ExportDotenv = endpoint({
  method: "GET",
  path: `${BASE}/.env`,
  summary: "Export as a .env file",
  description: `One \`KEY=value\` per line, quoted so that nothing is expanded. ${VALUE_READ}`,
  tag: TAG,
  security: SESSION_OR_BEARER,
  params: ENVIRONMENT_PARAMS,
  responses: {
    200: {
      description: "The file",
      contentType: "text/plain",
      headers: { "Content-Disposition": 'attachment; filename="<env>.env"' },
    },
  },
  errors: [403, 404],
  refusesHead: true,
})

export const ExportJson = endpoint({
  method: "GET",
  path: `${BASE}/json`,
  summary: "Export as JSON",
  description: `Every key and its value, exactly. ${VALUE_READ}`,
  tag: TAG,
  security: SESSION_OR_BEARER,
  params: ENVIRONMENT_PARAMS,
  responses: { 200: Schema.Record(Schema.String, Schema.String) },
  errors: [403, 404],
  refusesHead: true,
})

export const GetSecret = endpoint({
  method: "GET",
  path: `${BASE}/:key`,
  summary: "Read a secret and its value",
  description:
    `${VALUE_READ} The keys \`json\` and \`.env\` name the environment's exports here (the two operations above): ` +
    "a secret so named is read through `GET …/secrets/{key}/versions/{n}`, with the version the list gives.",
  tag: TAG,
  security: SESSION_OR_BEARER,
  params: SECRET_PARAMS,
  responses: { 200: Schema.Struct({ secret: SecretView }) },
  errors: [403, 404],
  refusesHead: true,
})

export const DeleteSecret = endpoint({
  method: "DELETE",
  path: `${BASE}/:key`,
  summary: "Delete a secret and its history",
  description:
    "Write access. With `expectedVersion`, the secret is deleted only if it is still the one read at that " +
    "version: changed, or deleted and created again, since then, it answers 409 with the version it is at now, and " +
    "nothing is deleted.",
  tag: TAG,
  security: SESSION_OR_BEARER,
  params: SECRET_PARAMS,
  query: {
    expectedVersion: {
      schema: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
      description: `Check-and-set: the version the secret was read at (from 1); ${PLAIN_NUMBER}. Left out, the secret is deleted whatever its version`,
    },
  },
  responses: { 200: Ok },
  errors: [403, 404, [409, SecretWriteConflictBody]],
})

export const ListVersions = endpoint({
  method: "GET",
  path: `${BASE}/:key/versions`,
  summary: "A secret's versions, newest first, without values",
  description:
    "Each version says who wrote it and, in `restoredFrom`, the version it brought back when a restore made it " +
    "(null for an ordinary create or update, and for versions stored before restores were recorded).",
  tag: TAG,
  security: SESSION_OR_BEARER,
  params: SECRET_PARAMS,
  responses: { 200: Schema.Struct({ versions: Schema.Array(VersionListItem) }) },
  errors: [404],
})

export const GetVersion = endpoint({
  method: "GET",
  path: `${BASE}/:key/versions/:n`,
  summary: "Read one version of a secret",
  description: `Audited as \`secret.read\` of \`<KEY>@<n>\`. ${VALUE_READ}`,
  tag: TAG,
  security: SESSION_OR_BEARER,
  params: VERSION_PARAMS,
  responses: { 200: Schema.Struct({ secret: VersionView }) },
  errors: [400, 403, 404],
  refusesHead: true,
})

export const RestoreVersion = endpoint({
  method: "POST",
  path: `${BASE}/:key/versions/:n/restore`,
  summary: "Restore a version",
  description:
    "The old value becomes a new version, listed in the history with `restoredFrom` set to `n`; audited as " +
    "`secret.restored`. Write access.",
  tag: TAG,
  security: SESSION_OR_BEARER,
  params: VERSION_PARAMS,
  responses: { 200: Written("restored") },
  errors: [400, 403, 404, 409],
})

export const mountSecrets = (app: Hono, routes: SecretsRoutes): void => {
  const { handle } = routes
  const params = (c: Context) => [c.req.param("slug") ?? "", c.req.param("env") ?? ""] as const
  const key = (c: Context) => c.req.param("key") ?? ""

  route(app, ListSecrets, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => listSecrets(actor, ...params(c))),
    ),
  )
  // A secret's write and read are hot paths (issue 10): their answers carry the preset headers as a plain record.
  route(
    app,
    SetSecret,
    (c, { body }) =>
      handle(
        c,
        withActor(c, routes, (actor) => Effect.flatMap(body, (input) => setSecret(actor, ...params(c), input))),
        (written) => answerJson(c, written, written.action === "created" ? 201 : 200),
      ),
    [],
    { presetResponse: true },
  )
  route(app, ExportDotenv, (c) =>
    handle(
      c,
      // A refused HEAD's `Allow` names DELETE too: the path is also a secret's named `.env` (`DELETE /:key`).
      withValueReader(c, routes, (actor) => exportDotenv(actor, ...params(c))),
      ({ filename, text }) =>
        c.body(text, 200, {
          "Content-Type": "text/plain; charset=utf-8",
          "Content-Disposition": attachment(filename),
        }),
    ),
  )
  route(app, ExportJson, (c) =>
    handle(
      c,
      withValueReader(c, routes, (actor) => exportJson(actor, ...params(c))),
      // Already JSON text, written in one pass (10,000 values make no object to stringify again).
      (text) => c.body(text, 200, { "Content-Type": "application/json" }),
    ),
  )
  route(
    app,
    GetSecret,
    (c) =>
      handle(
        c,
        withValueReader(c, routes, (actor) => getSecret(actor, ...params(c), key(c))),
      ),
    [],
    { presetResponse: true },
  )
  route(app, DeleteSecret, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => deleteSecret(actor, ...params(c), key(c), c.req.query("expectedVersion"))),
    ),
  )
  route(app, ListVersions, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => listVersions(actor, ...params(c), key(c))),
    ),
  )
  route(app, GetVersion, (c) =>
    handle(
      c,
      withValueReader(c, routes, (actor) => getVersion(actor, ...params(c), key(c), c.req.param("n") ?? "")),
    ),
  )
  route(app, RestoreVersion, (c) =>
    handle(
      c,
      withActor(c, routes, (actor) => restoreVersion(actor, ...params(c), key(c), c.req.param("n") ?? "")),
    ),
  )
}
