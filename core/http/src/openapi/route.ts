/**
 * Registering a route from its `Endpoint`: the route is added to the Hono app and its description to the app's
 * list, which `/openapi.json` is built from. The handler gets the request body as an effect that decodes it
 * with the endpoint's own Schema (`decodeJson`, or `optionalJson` for an optional body), so the Schema that the
 * document shows is the one that refuses a bad body with 400. A query string no route may read (`queryProblem`)
 * is refused with 400 before the handler runs.
 */
import type { BadRequest, UnsupportedMediaType } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import type { Context, Hono, MiddlewareHandler } from "hono"
import { refusingHead } from "../app/router.js"
import { errorResponse } from "../errors.js"
import { decodeJson, optionalJson } from "../middleware/jsonBody.js"
import { answersWithPresetHeaders } from "../middleware/presetHeaders.js"
import { queryProblem } from "../request/query.js"
import type { Endpoint } from "./endpoint.js"

/** What a handler receives besides the request. */
export interface RouteInput<B> {
  /** The body decoded with the endpoint's Schema; 400, 413 or 415 through the error table otherwise. */
  readonly body: Effect.Effect<B, BadRequest | UnsupportedMediaType>
}

export type RouteHandler<B> = (c: Context, input: RouteInput<B>) => Response | Promise<Response>

export interface RouteOptions {
  /**
   * The handler answers with `presetResponse` (`../middleware/presetHeaders.ts`): the headers every response carries
   * are held as a plain record for it instead of being set on the context. For the hottest routes only.
   */
  readonly presetResponse?: boolean
}

const described = new WeakMap<Hono, Array<Endpoint<unknown>>>()

/** Every endpoint registered on `app`, in the order it was registered. */
export const endpointsOf = (app: Hono): ReadonlyArray<Endpoint<unknown>> => described.get(app) ?? []

const noBody: Effect.Effect<never> = Effect.die(new Error("This endpoint declares no request body"))

/**
 * Adds the route of `endpoint` to `app`, behind `middleware` (rate limits, which count before the route runs), and
 * records it for the document.
 */
export const route = <B>(
  app: Hono,
  endpoint: Endpoint<B>,
  handler: RouteHandler<B>,
  middleware: ReadonlyArray<MiddlewareHandler> = [],
  options: RouteOptions = {},
): void => {
  const list = described.get(app) ?? []
  // The body type matters only to the handler; the document reads the Schema as it is.
  list.push(endpoint as Endpoint<unknown>)
  described.set(app, list)
  const schema = endpoint.body
  const read = endpoint.bodyOptional === true ? optionalJson : decodeJson
  // Not async: a handler that answers at once (a cached read) hands its response back without another promise;
  // Hono awaits whatever it gets and catches a synchronous throw the same way.
  const parameters = new Set(Object.keys(endpoint.query ?? {}))
  const last = ((c: Context) => {
    const problem = queryProblem(c, parameters)
    if (problem !== undefined) return errorResponse(c, problem)
    return handler(c, { body: schema === undefined ? noBody : read(c, schema) })
  }) as unknown as MiddlewareHandler
  // Hono names the first handler of a path as its route: that is the one a frame looks at.
  if (options.presetResponse === true) answersWithPresetHeaders(middleware[0] ?? last)
  // So that the methods a path is said to answer (a 405's and an OPTIONS's `Allow`) leave out its refused HEAD.
  if (endpoint.refusesHead === true) refusingHead(middleware[0] ?? last)
  app.on(endpoint.method, [endpoint.path], ...middleware, last)
}
