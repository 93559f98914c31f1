/**
 * Answers to requests too malformed to reach the apps, written by a listener in the apps' own shape: the
 * `{ error }` body of every error, `no-store`, the security headers and an `X-Request-Id`, so that no client ever
 * reads an empty or non-JSON error from a Coffer port, and every answer can be named in a report.
 */
import { randomUUID } from "node:crypto"
import { NO_STORE, REQUEST_ID_HEADER, securityHeaders } from "@coffer/http"

/** Why a request whose target and Host header make no URL is refused (each listener detects it its own way). */
export const UNUSABLE_URL = "The request's target and Host header do not make a valid URL"

/** Why a request still arriving when `COFFER_REQUEST_TIMEOUT_SECONDS` ran out is answered 408. */
export const NOT_RECEIVED_IN_TIME = "The request was not received in time"

const FIXED_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ["Content-Type", "application/json"],
  ...NO_STORE,
  ...securityHeaders({ publicOrigin: undefined }),
]

/**
 * The headers of one such answer besides its length. Its `X-Request-Id` is always new: the request never reached
 * the apps, and the one it may carry was not read from bytes that could not be parsed.
 */
export const malformedHeaders = (): ReadonlyArray<readonly [string, string]> => [
  ...FIXED_HEADERS,
  [REQUEST_ID_HEADER, randomUUID()],
]

/**
 * `status` with `{ error: message }`, for a listener that answers with a web `Response`; the connection closes after
 * it, as after every other malformed request: what follows on it cannot be trusted.
 */
export const malformedResponse = (status: number, message: string): Response =>
  new Response(JSON.stringify({ error: message }), {
    status,
    headers: [...malformedHeaders().map(([name, value]) => [name, value] as [string, string]), ["Connection", "close"]],
  })
