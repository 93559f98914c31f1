/**
 * `X-Request-Id` (issue 16): the client's id when it is a short token, else a new random UUID. It is kept as
 * `c.get("requestId")` for the request's log line and span, and answered on every response
 * (`../middleware/presetHeaders.ts` sets it with the other headers every response carries).
 *
 * Only `[A-Za-z0-9_=-]` up to the limit below is accepted (what Hono's own middleware accepts); anything longer or
 * with other characters is replaced, so nothing a client sends reaches a log line unchecked.
 */
import type { Context } from "hono"
import { header } from "../request/header.js"

export const REQUEST_ID_HEADER = "X-Request-Id"

/** Longer ids are replaced: a request id names a request, it does not carry data. */
export const MAX_REQUEST_ID_LENGTH = 64

const TOKEN = /^[\w\-=]+$/

declare module "hono" {
  interface ContextVariableMap {
    requestId: string
  }
}

/** The request's id, as the client sent it when acceptable, else a fresh one; remembered for the request. */
export const resolveRequestId = (c: Context): string => {
  const given = header(c, REQUEST_ID_HEADER)
  const id =
    given !== undefined && given.length <= MAX_REQUEST_ID_LENGTH && TOKEN.test(given) ? given : crypto.randomUUID()
  c.set("requestId", id)
  return id
}
