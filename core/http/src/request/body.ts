/**
 * Reading a request body without building a web `Request`. On Node, `c.req.arrayBuffer()` makes @hono/node-server
 * build an undici `Request` with its headers, an abort signal and a web stream over Node's, about a fifth of a
 * secret write's CPU (issue 10); the bytes are read from Node's `IncomingMessage` instead (`incoming.ts`). Where
 * something already read the body (the size limit buffers a chunked one through the web `Request`), or on other
 * runtimes, the web `Request` is read as before.
 *
 * The size was checked before this runs (the `bodyLimit` middleware: a declared `Content-Length`, which Node's parser
 * holds the body to, or a chunked body counted as it was buffered), so this reads what is there.
 */
import type { Context } from "hono"
import { incoming } from "./incoming.js"

/** The whole body; fails when the client goes away before sending it all. */
export const bodyBytes = (c: Context): Promise<Uint8Array> => {
  const request = incoming(c)
  if (request === undefined || request.readableDidRead)
    return c.req.arrayBuffer().then((bytes) => new Uint8Array(bytes))
  // Gone before anything listened: its `close` has been and will not come again.
  if (request.destroyed) return Promise.reject(new Error("the request body ended early"))
  return new Promise((resolve, reject) => {
    const chunks: Array<Uint8Array> = []
    let ended = false
    request.on("data", (chunk) => chunks.push(chunk))
    request.on("end", () => {
      ended = true
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
    })
    request.on("error", reject)
    // A connection closed before the end means a cut-off body: never wait for the rest.
    request.on("close", () => {
      if (!ended) reject(new Error("the request body ended early"))
    })
  })
}
