/**
 * The one way user commands speak HTTP: `fetch` with `Authorization: Bearer`, JSON in and out. A failed answer
 * becomes a `CofferFailure` whose kind follows the status (401 → auth, 404 → not found, 403/409/429 → refused,
 * 5xx → server, any other 4xx → usage) and whose message is the server's own `{error}` on one line; a server that
 * cannot be reached is a `server` failure too. The token never appears in a message.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { CofferFailure, kindOfStatus, serverFailure } from "./failure.js"

/** A service to call: its base URL and the token to present. */
export interface Endpoint {
  readonly url: string
  readonly token: string
}

export interface RequestOptions {
  readonly body?: unknown
  /** `text` answers the body as it came, byte for byte (the `.env` export). */
  readonly as?: "json" | "text"
}

/** How long one request may take before the server counts as unreachable. */
const TIMEOUT_MS = 30_000

const oneLine = (text: string) => text.replace(/\s*[\r\n]+\s*/g, " ").trim()

/** Why `fetch` failed, without the stack: Node hides the useful part (ECONNREFUSED…) in `cause`. */
const networkReason = (error: unknown): string => {
  if (error instanceof Error) {
    const cause = error.cause
    if (cause instanceof Error) return (cause as NodeJS.ErrnoException).code ?? cause.message
    return error.name === "TimeoutError" ? `no answer within ${TIMEOUT_MS / 1000} s` : error.message
  }
  return String(error)
}

const errorMessage = async (response: Response): Promise<string> => {
  const text = await response.text().catch(() => "")
  try {
    const body = JSON.parse(text) as { error?: unknown }
    if (typeof body.error === "string" && body.error.length > 0) return oneLine(body.error)
  } catch {
    // Not JSON (a proxy's error page): the status says enough.
  }
  return `HTTP ${response.status} ${response.statusText}`.trim()
}

/** `segment` made safe for a URL path (keys and names may hold characters that mean something there). */
export const segment = (value: string) => encodeURIComponent(value)

/** Calls `method path` on `endpoint`; the parsed JSON body (or the text) of a 2xx answer. */
export const request = (
  endpoint: Endpoint,
  method: string,
  path: string,
  options: RequestOptions = {},
): Effect.Effect<unknown, CofferFailure> =>
  Effect.gen(function* () {
    const headers: Record<string, string> = { Authorization: `Bearer ${endpoint.token}`, Accept: "application/json" }
    if (options.body !== undefined) headers["Content-Type"] = "application/json"
    const response = yield* Effect.tryPromise({
      try: (signal) =>
        fetch(`${endpoint.url}${path}`, {
          method,
          headers,
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
          signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
        }),
      catch: (error) => serverFailure(`cannot reach ${endpoint.url}: ${networkReason(error)}`),
    })
    if (!response.ok) {
      const message = yield* Effect.promise(() => errorMessage(response))
      return yield* new CofferFailure({ kind: kindOfStatus(response.status), message })
    }
    return yield* Effect.tryPromise({
      try: () => (options.as === "text" ? response.text() : response.json()),
      catch: (error) => serverFailure(`unreadable answer from ${endpoint.url}: ${networkReason(error)}`),
    })
  })

/** Decodes a 2xx answer with `schema`; a server answering something else fails with one line. */
export const decodeAnswer =
  <S extends Schema.Decoder<unknown>>(schema: S) =>
  (value: unknown) =>
    Schema.decodeUnknownEffect(schema)(value).pipe(
      Effect.mapError((error) => serverFailure(`unexpected answer from the server: ${error.message.split("\n")[0]}`)),
    )
