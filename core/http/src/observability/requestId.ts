/**
 * `X-Request-Id` (issue 16): Hono's own middleware, which accepts the client's id when it is a short token and
 * makes one otherwise (a random UUID), keeps it as `c.get("requestId")` for the request's log line and span, and
 * sets the header before the route, so that the answer is born with it (`presetHeaders.ts`). Responses made
 * outside the context get it from `requestTelemetry` after the route.
 *
 * Hono accepts `[A-Za-z0-9_=-]`; with the limit below, anything longer or with other characters is replaced, so
 * nothing a client sends reaches a log line unchecked.
 */
import { requestId as honoRequestId } from "hono/request-id"

export const REQUEST_ID_HEADER = "X-Request-Id"

/** Longer ids are replaced: a request id names a request, it does not carry data. */
export const MAX_REQUEST_ID_LENGTH = 64

export const requestId = () => honoRequestId({ headerName: REQUEST_ID_HEADER, limitLength: MAX_REQUEST_ID_LENGTH })
