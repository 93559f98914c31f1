/**
 * The headers every response carries, set by one middleware before the route: the request id
 * (`../observability/requestId.ts`), `no-store` (`./noStore.ts`) and the security headers (`./securityHeaders.ts`).
 *
 * Set before the route, a response the route makes through the context (`c.json`, `c.body`) is born with them, and
 * nothing touches it afterwards: setting a header on a finished response makes Hono copy it, which forces
 * @hono/node-server to build a full web `Response` instead of writing its light one straight to the socket (a fifth
 * of the CPU of a token-checked read, issue 10). One middleware rather than one per concern: each layer of Hono's
 * middleware chain costs a promise and a turn of the microtask queue on every request.
 *
 * A response made outside the context (`new Response`, as the web app's files are) does not inherit prepared
 * headers. The request id is the marker: when the answer lacks it, each header it lacks is added to it after the
 * route, so a page keeps the policy it set for itself.
 *
 * The hottest routes (the token-checked schema read, a secret's read and write, issue 10) go further: their handlers
 * are marked (`answersWithPresetHeaders`) and answer with `presetResponse` (JSON: `answerJson`, which `handle`
 * answers with by default), a response whose headers are a plain record, which
 * @hono/node-server writes as it is. Hono's context keeps prepared headers in a web `Headers` object, validating
 * every name and value as it is set and sorting them when they are read back, which cost that read more than
 * its routing. For a marked route the headers are only held in a record until the answer; should anything set a
 * header through the context first (CORS, a cookie), the record is handed to the context at that moment and the
 * answer is made the usual way, so nothing set is ever lost.
 */
import type { Context, MiddlewareHandler } from "hono"
import type { ContentfulStatusCode } from "hono/utils/http-status"
import { REQUEST_ID_HEADER, resolveRequestId } from "../observability/requestId.js"
import { matchedRoute } from "../observability/route.js"
import { NO_STORE } from "./noStore.js"
import { type SecurityHeadersOptions, securityHeaders } from "./securityHeaders.js"

export type HeaderList = ReadonlyArray<readonly [name: string, value: string]>

/** The record of a marked route's request, until its answer (`presetResponse`) or a header set through the context. */
interface Held {
  headers: Record<string, string> | undefined
  /** Whether the answer was made with the record: it then carries every preset header. */
  answered: boolean
}

const HELD = "cofferPresetHeaders"

declare module "hono" {
  interface ContextVariableMap {
    [HELD]: Held
  }
}

const marked = new WeakSet<object>()

/** The status and headers of a bodiless answer made by `presetResponse`. */
export interface PresetHead {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
}

const heads = new WeakMap<Response, PresetHead>()

/**
 * What a bodiless answer made by `presetResponse` (a 304 to a schema poll) is made of, for a host to write it
 * itself: @hono/node-server writes an answer with a body from its record, but builds a full web `Response` and
 * `Headers` for one without, which made a CI job's `If-None-Match` poll cost more than the full read (issue 10).
 */
export const presetHead = (response: Response): PresetHead | undefined => heads.get(response)

/**
 * An answer's status, read from its record when it is a bodiless preset answer: @hono/node-server's `Response`
 * without a body builds a web one as soon as anything asks for its status.
 */
export const statusOf = (response: Response): number => heads.get(response)?.status ?? response.status

/** Marks a route handler that answers with `presetResponse` (when it gets one). */
export const answersWithPresetHeaders = <H extends object>(handler: H): H => {
  marked.add(handler)
  return handler
}

/**
 * A response with the preset headers and `headers` as a plain record, or `undefined` when the route is not marked
 * or something has set a header through the context since: answer through the context then (`c.body`).
 */
export const presetResponse = (
  c: Context,
  body: Uint8Array | string | null,
  status: number,
  headers: Readonly<Record<string, string>>,
): Response | undefined => {
  const held = c.get(HELD)
  const record = held?.headers
  if (held === undefined || record === undefined) return undefined
  for (const name in headers) record[name] = headers[name]!
  held.headers = undefined
  held.answered = true
  const response = new Response(body as Uint8Array<ArrayBuffer> | string | null, { status, headers: record })
  if (body === null) heads.set(response, { status, headers: record })
  return response
}

/**
 * Adds a header to the request's answer, whatever the route: into the held record of a marked route, where it costs
 * nothing more, else through the context. For what the handling learns on its way (an API key's expiry).
 */
export const addAnswerHeader = (c: Context, name: string, value: string): void => {
  const record = c.get(HELD)?.headers
  if (record !== undefined) record[name] = value
  else c.header(name, value)
}

const JSON_TYPE = { "Content-Type": "application/json" }

/** `value` as JSON with `status`: through `presetResponse` on a marked route, else as `c.json` answers it. */
export const answerJson = (c: Context, value: unknown, status: ContentfulStatusCode = 200): Response =>
  presetResponse(c, JSON.stringify(value), status, JSON_TYPE) ?? c.json(value as never, status)

/** The two halves of the middleware, for a middleware that does more around the route (`../app/requestFrame.ts`). */
export interface PresetHeaders {
  /**
   * Sets the headers on the context before the route, or holds them for a route whose handler is marked
   * (`answersWithPresetHeaders`); returns the request id.
   */
  readonly before: (c: Context, handler?: object) => string
  /** Adds what a response made outside the context lacks. */
  readonly after: (c: Context, id: string) => void
}

export const makePresetHeaders = (options: SecurityHeadersOptions): PresetHeaders => {
  const fixed: HeaderList = [...NO_STORE, ...securityHeaders(options)]
  const prepare = (c: Context, id: string) => {
    c.header(REQUEST_ID_HEADER, id)
    for (const [name, value] of fixed) c.header(name, value)
  }
  const hold = (c: Context, id: string) => {
    const headers: Record<string, string> = { [REQUEST_ID_HEADER]: id }
    for (const [name, value] of fixed) headers[name] = value
    const held: Held = { headers, answered: false }
    c.set(HELD, held)
    // The first header set through the context hands the preset ones to it, so that both reach the answer.
    const set = c.header
    c.header = (name, value, options) => {
      if (held.headers !== undefined) {
        held.headers = undefined
        prepare(c, id)
      }
      set(name, value, options)
    }
  }
  return {
    before: (c, handler) => {
      const id = resolveRequestId(c)
      if (handler !== undefined && marked.has(handler)) hold(c, id)
      else prepare(c, id)
      return id
    },
    after: (c, id) => {
      const held = c.get(HELD)
      if (held !== undefined) {
        if (held.answered) return
        // Answered some other way (an error through the context): the record's headers, those added on the way
        // (`addAnswerHeader`) with them, go on it as on any response made outside the context.
        const record = held.headers
        held.headers = undefined
        if (record !== undefined && !c.res.headers.has(REQUEST_ID_HEADER)) {
          for (const name in record) if (!c.res.headers.has(name)) c.header(name, record[name]!)
          return
        }
      }
      if (c.res.headers.has(REQUEST_ID_HEADER)) return
      c.header(REQUEST_ID_HEADER, id)
      for (const [name, value] of fixed) if (!c.res.headers.has(name)) c.header(name, value)
    },
  }
}

export const presetHeaders = (options: SecurityHeadersOptions): MiddlewareHandler => {
  const { before, after } = makePresetHeaders(options)
  return async (c, next) => {
    const id = before(c, matchedRoute(c)?.handler)
    await next()
    after(c, id)
  }
}
