/**
 * How a route runs a use case. The apps are built from a `ManagedRuntime` that the host makes once from the
 * chosen layers (DESIGN.md "Shape"); `makeHandle(runtime)` gives routes a `handle(c, effect)` that runs the
 * effect on it and turns the outcome into a response: success through the route's own answer (JSON by
 * default), failure through the one error table of `errors.ts`.
 *
 * The use case runs under the request's span when tracing is on, and a failure is handed to the request's
 * telemetry (`observability/requestTelemetry.ts`), whose log line carries the cause of every 5xx, once, beside
 * the request id, method and route template, never headers, query strings or bodies (where credentials and secret
 * values travel). The host is expected to build the runtime's layers before serving, so that a layer that cannot
 * be built stops the start instead of failing each request.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import type { Context } from "hono"
import { type ErrorResponse, type HttpError, internalError, respond, toErrorResponse, unavailable } from "./errors.js"
import { answerJson } from "./middleware/presetHeaders.js"
import { noteFailure, requestSpan } from "./observability/requestTelemetry.js"

/**
 * A route's answer: the response itself when the use case finished without waiting on anything (a cached read),
 * else a promise of it. Hono takes either.
 */
export type Answer = Response | Promise<Response>

export interface Handle<R> {
  /** Runs `effect` and answers its value as JSON with status 200. */
  <A, E extends HttpError>(c: Context, effect: Effect.Effect<A, E, R>): Answer
  /** Runs `effect` and answers with `onSuccess(value)`. */
  <A, E extends HttpError>(c: Context, effect: Effect.Effect<A, E, R>, onSuccess: (value: A) => Answer): Answer
}

/** The response for a failed run: an interruption (the runtime shutting down) is 503, a defect 500. */
export const responseForCause = (cause: Cause.Cause<unknown>): ErrorResponse => {
  if (Cause.hasInterruptsOnly(cause)) return unavailable
  const error = Cause.findError(cause)
  return error._tag === "Success" ? toErrorResponse(error.success) : internalError
}

/**
 * One fiber per request. It starts at once and runs as far as it can before this returns: a use case that waits
 * on nothing (a token-checked read served from the process's caches) has ended by then and is answered
 * synchronously, without a promise or a further turn of the event loop; any other is answered when it ends.
 */
export const makeHandle =
  <R, ER>(runtime: ManagedRuntime.ManagedRuntime<R, ER>): Handle<R> =>
  <A, E extends HttpError>(c: Context, effect: Effect.Effect<A, E, R>, onSuccess?: (value: A) => Answer): Answer => {
    const answer = (exit: Exit.Exit<A, E | ER>): Answer => {
      if (Exit.isFailure(exit)) {
        noteFailure(c, exit.cause)
        return respond(c, responseForCause(exit.cause))
      }
      return onSuccess === undefined ? answerJson(c, exit.value) : onSuccess(exit.value)
    }
    // No abort signal on purpose: a client that hangs up must not interrupt a write between its change and its
    // audit entry; a use case, once started, runs to its end.
    const span = requestSpan(c)
    const fiber = runtime.runFork(span === undefined ? effect : Effect.withParentSpan(effect, span))
    const ended = fiber.pollUnsafe()
    if (ended !== undefined) return answer(ended)
    return new Promise<Exit.Exit<A, E | ER>>((resolve) => fiber.addObserver(resolve)).then(answer)
  }

/** For `app.onError`: an exception escaped a route outside any effect. Logged in full, answered as a bare 500. */
export const reportException = (error: Error, c: Context): Response => {
  noteFailure(c, Cause.die(error))
  return respond(c, internalError)
}
