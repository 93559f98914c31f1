/**
 * Reading a request header without building a web `Headers` object.
 *
 * On Node, @hono/node-server hands Hono a light request whose `headers` are made on first use: reading any header
 * through `c.req.header()` copies every header of the request into an undici `Headers`, validating each name and
 * value, which costs a token-checked read more than its whole token check. Node's `IncomingMessage` (`incoming.ts`)
 * has them as a plain object of lowercase names, so that is read when it is there; other runtimes (Bun) hand Hono
 * a real `Request`, read as usual.
 *
 * The two agree on what a request says, except for repeated headers that Node keeps only once (`Authorization`,
 * `Content-Type`, `Host`, …: the first wins where undici joins them with a comma); a repeated credential then
 * names one credential instead of failing to parse, which grants nothing the first copy alone would not.
 */
import type { Context } from "hono"
import { incoming } from "./incoming.js"

/** The request's header `name` (any case), or `undefined` when absent. */
export const header = (c: Context, name: string): string | undefined => {
  const headers = incoming(c)?.headers
  if (headers === undefined) return c.req.header(name)
  const value = headers[name.toLowerCase()]
  return typeof value === "string" || value === undefined ? value : value.join(", ")
}
