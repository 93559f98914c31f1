// The same-run reference for the token-checked read: a bare Hono route on @hono/node-server answering the same
// bytes, and nothing else. Started in its own process by `load.ts`; prints the line `reference listening on <url>`
// once bound. The body comes in base64 through REFERENCE_BODY.
//
// Without REFERENCE_HEADERS it answers the body with its content type alone, as the reference does. With
// REFERENCE_HEADERS (a JSON record of a Coffer answer's own headers) it answers the same header block as well, written
// as Coffer writes it (a plain record on the response, which @hono/node-server hands to Node as it is), with a fresh
// `x-request-id` per answer when the record names one: the same bytes on the wire, at the least a route can do.
import { randomUUID } from "node:crypto"
import { serve } from "@hono/node-server"
import { Hono } from "hono"

const body = Buffer.from(process.env.REFERENCE_BODY ?? "", "base64")
const headers = process.env.REFERENCE_HEADERS === undefined ? undefined : JSON.parse(process.env.REFERENCE_HEADERS)
/** A record of its own per answer, as Coffer's: @hono/node-server adds `Content-Length` to the record it is given. */
const answer = () => {
  const record = { ...headers }
  if ("x-request-id" in record) record["x-request-id"] = randomUUID()
  return new Response(body, { status: 200, headers: record })
}
const app = new Hono()
app.get(
  "/api/:platform/:version",
  headers === undefined ? (c) => c.body(body, 200, { "Content-Type": "application/json" }) : answer,
)
const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  console.log(`reference listening on http://127.0.0.1:${info.port}`)
})
process.on("SIGTERM", () => server.close(() => process.exit(0)))
