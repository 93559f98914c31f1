/**
 * The one way user commands speak HTTP: `fetch` with `Authorization: Bearer`, JSON in and out. A failed answer
 * becomes a `CofferFailure` whose kind follows the status (401 → auth, 404 → not found, 403/409/429 → refused,
 * 5xx → server, any other 4xx → usage) and whose message is the server's own `{error}` on one line. An answer
 * that is not Coffer's (a page, or an error without its JSON `{error}`) and a server that cannot be reached are
 * `server` failures. The token never appears in a message.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { CofferFailure, describeIssue, kindOfStatus, serverFailure, usage } from "./failure.js"
import { parseJsonText } from "./jsonText.js"
import { API_KEY_EXPIRES_HEADER, noteExpiry } from "./keyExpiry.js"
import { isOtherService, type Service, wrongService } from "./services.js"
import { withoutCredentials } from "./settings.js"

/** A service to call: its base URL and the token to present. */
export interface Endpoint {
  readonly url: string
  readonly token: string
  /** What to do when the service refuses the token (401), added to its message: where the token came from. */
  readonly onRefused?: string
  /** The Coffer service this URL is meant to be: a 401 or 404 then asks whether it is the other one (`misdirected`). */
  readonly service?: Service
}

export interface RequestOptions {
  readonly body?: unknown
  /** `text` answers the body as it came, byte for byte (the `.env` export). */
  readonly as?: "json" | "text"
  /** Sends no credential: a public endpoint, asked of a URL the key may not belong to. */
  readonly anonymous?: boolean
}

/** How long one request, its answer's body included, may take before the server counts as unreachable. */
export const RequestTimeout = Context.Reference<number>("@coffer/cli/RequestTimeout", { defaultValue: () => 30_000 })

const oneLine = (text: string) => text.replace(/\s*[\r\n]+\s*/g, " ").trim()

/**
 * A server's words as they may reach a terminal: its control characters (ESC above all, which starts a sequence
 * that recolours, retitles or rewrites the terminal) written out as `\u001b`. The message is printed as it came
 * otherwise, and whatever answers at the URL given may send one shaped as Coffer's.
 */
const visible = (text: string) =>
  text.replace(/\p{Cc}/gu, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`)

/**
 * What the TLS handshake meets at an `https://` URL whose server speaks plain HTTP (a development host, which
 * serves http): its answer is no TLS record, said by OpenSSL 3.0 as a wrong version and by later ones as a length.
 */
const PLAIN_HTTP_AT_HTTPS = new Set(["ERR_SSL_WRONG_VERSION_NUMBER", "ERR_SSL_PACKET_LENGTH_TOO_LONG"])

/** Why `fetch` failed, without the stack: Node hides the useful part (ECONNREFUSED…) in `cause`. */
const networkReason = (error: unknown): string => {
  if (error instanceof Error) {
    const cause = error.cause
    if (cause instanceof Error) {
      const code = (cause as NodeJS.ErrnoException).code
      if (code !== undefined && PLAIN_HTTP_AT_HTTPS.has(code))
        return `${code}: it answers plain HTTP there, not TLS (an http:// URL?)`
      return code ?? cause.message
    }
    return error.message
  }
  return String(error)
}

/**
 * An abort signal for one exchange that fires after `ms`, and `clear` to call once it is over. A timer of our
 * own rather than `AbortSignal.timeout`: combined with `AbortSignal.any` on Node 20, that signal may be
 * garbage-collected before it fires, and a server that accepts and never answers would then hold the command
 * (and `run --fallback`) forever. The pending timer also keeps the process alive while it waits.
 */
const deadline = (ms: number) => {
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, ms)
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    /** Aborts with the exchange when `signal` (an interruption) does. */
    follow: (signal: AbortSignal) => signal.addEventListener("abort", () => controller.abort(), { once: true }),
    clear: () => clearTimeout(timer),
  }
}

/** A header value `fetch` would refuse (a control character, or beyond Latin-1): a pasting mistake, not the network. */
const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/

/** The content type of Coffer's answers, errors included (`application/json`, perhaps with a charset). */
const JSON_TYPE = /^application\/json\b/i

/** The base URL's shape, said whenever something else than Coffer's API answered. */
const BASE_URL_HINT = "give the service's base URL (http(s)://HOST[:PORT], no path)"

/**
 * The server's `{ error, code? }`: its message on one line, and its code when it gave one; `undefined` for any
 * other answer (an empty body, a page, text, JSON of another shape), which Coffer never gives.
 */
const errorAnswer = async (response: Response): Promise<{ message: string; code?: string } | undefined> => {
  const text = await response.text().catch(() => "")
  if (!JSON_TYPE.test(response.headers.get("content-type") ?? "")) return undefined
  try {
    const body = JSON.parse(text) as { error?: unknown; code?: unknown } | null
    if (typeof body !== "object" || body === null || typeof body.error !== "string") return undefined
    const message = visible(oneLine(body.error)) || `HTTP ${response.status} ${response.statusText}`.trim()
    return typeof body.code === "string" ? { message, code: body.code } : { message }
  } catch {
    return undefined
  }
}

/**
 * An error status from something that is not Coffer's API (another web server, a proxy's page): its status
 * does not say what Coffer's would (a 404 from another server is no missing environment), so it is kept out of
 * the failure, and the command ends with 5, as for a web page answered where the API was expected.
 */
/** Where a redirect points, without credentials, query or fragment; `undefined` for any other answer. */
const redirectTarget = (url: string, response: Response): string | undefined => {
  const location = response.headers.get("location")
  if (response.status < 300 || response.status >= 400 || location === null) return undefined
  try {
    return withoutCredentials(new URL(location, url).href.replace(/[?#].*$/s, ""))
  } catch {
    return "an address that is not one"
  }
}

const notCofferAnswer = (url: string, response: Response) => {
  const to = redirectTarget(url, response)
  if (to !== undefined) {
    return serverFailure(
      `${url} answered HTTP ${response.status}, a redirect to ${to}: commands follow no redirect (the key and ` +
        "what is sent would go with it); give the URL the service is at",
    )
  }
  const page = /^text\/html\b/i.test(response.headers.get("content-type") ?? "") ? " with a web page" : ""
  const status = `HTTP ${response.status} ${response.statusText}`.trim()
  // A 5xx page is most often a proxy in front of the service that could not reach it: the URL may well be right.
  const hint = response.status >= 500 ? "a proxy in front of the service, or another server" : BASE_URL_HINT
  return serverFailure(`${url} answered ${status}${page}, not as Coffer's API does: ${hint}`)
}

/** `segment` made safe for a URL path (keys and names may hold characters that mean something there). */
export const segment = (value: string) => encodeURIComponent(value)

/**
 * A path segment `.` or `..`, as a name given as `..` makes it: `fetch` resolves it away, and the request would go to
 * another resource than the one named (`DELETE …/environments/..` to the project itself). Nothing is named so.
 */
const DOT_SEGMENT = /\/\.{1,2}(?=[/?]|$)/

/**
 * An empty path segment, as an empty argument makes it (`secrets get ""`, `environments delete ""`): the request
 * reaches no route or another one, and its 404 would be said as a missing resource (exit 3) named by nothing.
 */
const EMPTY_SEGMENT = /\/(?=[/?]|$)/

/** One exchange: the parsed JSON body (or the text) of a 2xx answer, else a failure following the status. */
const exchange = (
  endpoint: Endpoint,
  method: string,
  path: string,
  options: RequestOptions = {},
): Effect.Effect<unknown, CofferFailure> =>
  Effect.gen(function* () {
    if (DOT_SEGMENT.test(path)) return yield* usage("no project, environment or key is named . or ..")
    if (EMPTY_SEGMENT.test(path.split("?")[0]!)) {
      return yield* usage("a project, environment, key or platform name given is empty: give one")
    }
    if (INVALID_HEADER_VALUE.test(endpoint.token)) {
      return yield* usage("the API key holds a control character or a character no HTTP header can carry")
    }
    const headers: Record<string, string> = { Accept: "application/json" }
    if (options.anonymous !== true) headers.Authorization = `Bearer ${endpoint.token}`
    if (options.body !== undefined) headers["Content-Type"] = "application/json"
    const timeout = yield* RequestTimeout
    // One deadline for the whole exchange: a server may send its headers and then stall in the body.
    return yield* Effect.acquireUseRelease(
      Effect.sync(() => deadline(timeout)),
      (limit) =>
        Effect.gen(function* () {
          const unreachable = (error: unknown) => {
            const reason = limit.timedOut() ? `no answer within ${timeout / 1000} s` : networkReason(error)
            return serverFailure(`cannot reach ${endpoint.url}: ${reason}`)
          }
          const response = yield* Effect.tryPromise({
            try: (signal) => {
              limit.follow(signal)
              return fetch(`${endpoint.url}${path}`, {
                method,
                headers,
                body: options.body === undefined ? undefined : JSON.stringify(options.body),
                // A redirect would carry the body (secret values, on a push) wherever it points: it is refused.
                redirect: "manual",
                signal: limit.signal,
              })
            },
            catch: unreachable,
          })
          if (!response.ok) {
            const answered = yield* Effect.promise(() => errorAnswer(response))
            if (answered === undefined) return yield* notCofferAnswer(endpoint.url, response)
            const hint = response.status === 401 ? endpoint.onRefused : undefined
            const message = hint === undefined ? answered.message : `${answered.message}: ${hint}`
            return yield* new CofferFailure({
              kind: kindOfStatus(response.status),
              status: response.status,
              message,
              ...(answered.code === undefined ? {} : { code: answered.code }),
            })
          }
          yield* noteExpiry(response.headers.get(API_KEY_EXPIRES_HEADER))
          // Coffer's API never answers a page; a URL with a path (one copied from the browser) reaches the web
          // app, whose page would otherwise be printed, or written by `pull --output`, as if it were the export.
          if (/^text\/html\b/i.test(response.headers.get("content-type") ?? "")) {
            yield* Effect.promise(() => response.body?.cancel() ?? Promise.resolve())
            return yield* serverFailure(`${endpoint.url} answered with a web page, not Coffer's API: ${BASE_URL_HINT}`)
          }
          const text = yield* Effect.tryPromise({
            try: (signal) => {
              limit.follow(signal)
              return response.text()
            },
            catch: (error) =>
              limit.timedOut()
                ? unreachable(error)
                : serverFailure(`unreadable answer from ${endpoint.url}: ${networkReason(error)}`),
          })
          if (options.as === "text") return text
          // Not `response.json()`: its message quotes the text around a mistake, and an answer may hold values.
          return yield* Effect.mapError(Effect.fromResult(parseJsonText(text)), (reason) =>
            serverFailure(`unreadable answer from ${endpoint.url}: ${reason}`),
          )
        }),
      (limit) => Effect.sync(limit.clear),
    )
  })

/**
 * `failure`, or, when `endpoint` is the other Coffer service, a failure saying so. The two run side by side on
 * neighbouring ports, and each answers the other's routes with 404 ("Not found") or 401 ("Invalid or revoked API
 * token"), which sends a person after a project or key that is fine. Asked only once a request has failed that
 * way, so a working command makes no extra request; the status is kept (`run --fallback` acts on it).
 */
const misdirected = (endpoint: Endpoint, failure: CofferFailure): Effect.Effect<never, CofferFailure> => {
  const wanted = endpoint.service
  if (wanted === undefined || (failure.status !== 401 && failure.status !== 404)) return Effect.fail(failure)
  return Effect.flatMap(isOtherService(endpoint.url, wanted, exchange), (other) =>
    Effect.fail(
      other
        ? new CofferFailure({ kind: "usage", status: failure.status, message: wrongService(endpoint.url, wanted) })
        : failure,
    ),
  )
}

/** Calls `method path` on `endpoint`; the parsed JSON body (or the text) of a 2xx answer. */
export const request = (
  endpoint: Endpoint,
  method: string,
  path: string,
  options: RequestOptions = {},
): Effect.Effect<unknown, CofferFailure> =>
  Effect.catchTag(exchange(endpoint, method, path, options), "CofferFailure", (failure) =>
    misdirected(endpoint, failure),
  )

/** Decodes a 2xx answer with `schema`; a server answering something else fails with one line. */
export const decodeAnswer =
  <S extends Schema.Decoder<unknown>>(schema: S) =>
  (value: unknown) =>
    Schema.decodeUnknownEffect(schema)(value).pipe(
      Effect.mapError((error) => serverFailure(`unexpected answer from the server: ${describeIssue(error)}`)),
    )
