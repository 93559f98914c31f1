// The same-run reference for the token-checked read: a bare Hono route on @hono/node-server answering the same
// bytes with the same content type, and nothing else. Started in its own process by `load.ts`; prints the line
// `reference listening on <url>` once bound. The body comes in base64 through REFERENCE_BODY.
import { serve } from "@hono/node-server"
import { Hono } from "hono"

const body = Buffer.from(process.env.REFERENCE_BODY ?? "", "base64")
const app = new Hono()
app.get("/api/:platform/:version", (c) => c.body(body, 200, { "Content-Type": "application/json" }))
const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  console.log(`reference listening on http://127.0.0.1:${info.port}`)
})
process.on("SIGTERM", () => server.close(() => process.exit(0)))
