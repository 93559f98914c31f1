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
  setSecret,
} from "@coffer/secrets"
import { Effect, Schema } from "effect"
import type { Context, Hono } from "hono"
import { decodeJson } from "../middleware/jsonBody.js"
import { type SecretsRoutes, withCaller, withValueReader } from "./context.js"

const SetSecretBody = Schema.Struct({ key: Schema.String, value: Schema.String })

/** `attachment; filename="<env>.env"`; characters that would break the quoted string are replaced. */
export const attachment = (filename: string) => `attachment; filename="${filename.replace(/["\\\r\n]/g, "_")}"`

export const mountSecrets = (app: Hono, routes: SecretsRoutes): void => {
  const { handle } = routes
  const base = "/api/projects/:slug/environments/:env/secrets"
  const params = (c: Context) => [c.req.param("slug") ?? "", c.req.param("env") ?? ""] as const

  app.get(base, (c) =>
    handle(
      c,
      withCaller(c, routes, (caller) => listSecrets(caller, ...params(c))),
    ),
  )
  app.post(base, (c) =>
    handle(
      c,
      withCaller(c, routes, (caller) =>
        Effect.flatMap(decodeJson(c, SetSecretBody), (body) => setSecret(caller, ...params(c), body)),
      ),
      (written) => c.json(written, written.action === "created" ? 201 : 200),
    ),
  )
  app.get(`${base}/.env`, (c) =>
    handle(
      c,
      withValueReader(c, routes, (caller) => exportDotenv(caller, ...params(c))),
      ({ filename, text }) =>
        c.body(text, 200, {
          "Content-Type": "text/plain; charset=utf-8",
          "Content-Disposition": attachment(filename),
        }),
    ),
  )
  app.get(`${base}/json`, (c) =>
    handle(
      c,
      withValueReader(c, routes, (caller) => exportJson(caller, ...params(c))),
    ),
  )
  app.get(`${base}/:key`, (c) =>
    handle(
      c,
      withValueReader(c, routes, (caller) => getSecret(caller, ...params(c), c.req.param("key"))),
    ),
  )
  app.delete(`${base}/:key`, (c) =>
    handle(
      c,
      withCaller(c, routes, (caller) => deleteSecret(caller, ...params(c), c.req.param("key"))),
    ),
  )
  app.get(`${base}/:key/versions`, (c) =>
    handle(
      c,
      withCaller(c, routes, (caller) => listVersions(caller, ...params(c), c.req.param("key"))),
    ),
  )
  app.get(`${base}/:key/versions/:n`, (c) =>
    handle(
      c,
      withValueReader(c, routes, (caller) => getVersion(caller, ...params(c), c.req.param("key"), c.req.param("n"))),
    ),
  )
  app.post(`${base}/:key/versions/:n/restore`, (c) =>
    handle(
      c,
      withCaller(c, routes, (caller) => restoreVersion(caller, ...params(c), c.req.param("key"), c.req.param("n"))),
    ),
  )
}
