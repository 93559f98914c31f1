/**
 * Request bodies over 1 MiB answer 413 `{ error }` before any route runs (DESIGN.md "Limits on input").
 * A declared `Content-Length` is checked up front; a chunked body is counted while it is read and the
 * request is cut off as soon as it passes the limit, so no more than the limit is ever held in memory.
 *
 * `GET`, `HEAD` and `OPTIONS` pass untouched: @hono/node-server gives them no body, and asking for one would make it
 * build a full web `Request` (headers, abort signal) that a read has no use for, a sixth of a token read's CPU. A
 * declared length is read from the headers alone for the same reason (Hono's middleware looks at the web
 * `Request` first); only a chunked body goes through Hono's counting reader.
 *
 * A chunked body the client stops sending (its connection closed before the last chunk) answers 400, as a declared
 * one cut short does when the route reads it (`./jsonBody.ts`): the client's doing, never a logged server failure.
 */
import { BadRequest, PayloadTooLarge } from "@coffer/kernel"
import type { Context, MiddlewareHandler } from "hono"
import { bodyLimit as honoBodyLimit } from "hono/body-limit"
import { errorResponse } from "../errors.js"
import { header } from "../request/header.js"

export const MAX_BODY_BYTES = 1024 * 1024

/** The answer to a body that did not arrive whole, here and where a route reads one (`./jsonBody.ts`). */
export const UNREADABLE_BODY = "Could not read the request body"

const BODILESS = new Set(["GET", "HEAD", "OPTIONS"])

export const bodyLimit = (maxBytes: number = MAX_BODY_BYTES): MiddlewareHandler => {
  const tooLarge = async (c: Context) =>
    errorResponse(c, new PayloadTooLarge({ message: `Request body is larger than ${describeBytes(maxBytes)}` }))
  const counting = honoBodyLimit({ maxSize: maxBytes, onError: tooLarge })
  const buffered: MiddlewareHandler = (c, next) => {
    let reached = false
    const onward = () => {
      reached = true
      return next()
    }
    // Only a failure before `next` is the body's: what the route throws is the app's to answer.
    return counting(c, onward).catch((error: unknown) => {
      if (reached) throw error
      return errorResponse(c, new BadRequest({ message: UNREADABLE_BODY }))
    })
  }
  return (c, next) => {
    if (BODILESS.has(c.req.method)) return next()
    const length = header(c, "Content-Length")
    // Hono's own rule: a declared length decides, unless the body is chunked.
    if (length === undefined || header(c, "Transfer-Encoding") !== undefined) return buffered(c, next)
    // Refused from the headers alone, before anything opens the body as a stream: a body opened and left unread
    // made @hono/node-server reset the connection after the 413, failing the client's next request on it.
    return Number.parseInt(length, 10) > maxBytes ? tooLarge(c) : next()
  }
}

const describeBytes = (bytes: number) =>
  bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`
