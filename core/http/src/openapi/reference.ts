/**
 * `GET /openapi.json` and the reference at `/docs`, on both services, without a credential. The document is built
 * on the first request, once every route of the app is registered, and kept: routes do not change while the app
 * runs. The pages carry the web app's policy (`'self'` only, nothing inline); `COFFER_WEB=off` does not turn them
 * off, since they are the service's, not the web app's.
 */
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { PAGE_CONTENT_SECURITY_POLICY } from "../web/webApp.js"
import { PUBLIC } from "./common.js"
import { DOCS_SCRIPT, DOCS_SCRIPT_PATH, DOCS_STYLE, DOCS_STYLE_PATH, docsHtml } from "./docsPage.js"
import { type DocumentInfo, openApiDocument } from "./document.js"
import { endpoint } from "./endpoint.js"
import { endpointsOf, route } from "./route.js"

export type { DocumentInfo }

export const OPENAPI_PATH = "/openapi.json"
export const DOCS_PATH = "/docs"

const TAG = "Reference"

export const GetOpenApi = endpoint({
  method: "GET",
  path: OPENAPI_PATH,
  summary: "This document",
  description: "OpenAPI 3.1, generated from the Schemas that decode the requests and describe the answers.",
  tag: TAG,
  security: PUBLIC,
  responses: { 200: { description: "The OpenAPI document", schema: Schema.Record(Schema.String, Schema.Json) } },
})

const page = (path: string, summary: string, contentType: string) =>
  endpoint({
    method: "GET",
    path,
    summary,
    tag: TAG,
    security: PUBLIC,
    responses: { 200: { description: summary, contentType } },
  })

export const GetDocs = page(DOCS_PATH, "The interactive reference", "text/html")
export const GetDocsScript = page(DOCS_SCRIPT_PATH, "The reference's script", "text/javascript")
export const GetDocsStyle = page(DOCS_STYLE_PATH, "The reference's style sheet", "text/css")

const asset = (body: string, contentType: string) => () =>
  new Response(body, {
    headers: {
      "Content-Type": `${contentType}; charset=utf-8`,
      "Content-Security-Policy": PAGE_CONTENT_SECURITY_POLICY,
    },
  })

/** Mounts the document and the reference; call it after every other route is registered or before, alike. */
export const mountReference = (app: Hono, info: DocumentInfo): void => {
  let document: string | undefined
  route(app, GetOpenApi, (c) => {
    document ??= JSON.stringify(openApiDocument(endpointsOf(app), info))
    return c.body(document, 200, { "Content-Type": "application/json" })
  })
  route(app, GetDocs, asset(docsHtml(info.title), "text/html"))
  route(app, GetDocsScript, asset(DOCS_SCRIPT, "text/javascript"))
  route(app, GetDocsStyle, asset(DOCS_STYLE, "text/css"))
}
