/**
 * What every request leaves behind (issue 16): one log line (`requestLog.ts`), its count and duration in the
 * service's metrics (`httpMetrics.ts`), and, when tracing is on, a server span that continues the caller's W3C
 * `traceparent` and is the parent of the use case's spans (`runtime.ts` runs the use case under it).
 *
 * Mounted outermost, so that it times the whole answer and sees the final status, errors included. It reads the
 * runtime's services once (loggers' level, metric registry, tracer) and then works synchronously: no Effect run and
 * no await per request, and nothing is set on the response after the route (`../middleware/presetHeaders.ts`).
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Exit from "effect/Exit"
import { fromRecordUnsafe } from "effect/http/Headers"
import { w3c } from "effect/http/HttpTraceContext"
import * as LogLevel from "effect/LogLevel"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Tracer from "effect/Tracer"
import type { Context as HonoContext, MiddlewareHandler } from "hono"
import { statusOf } from "../middleware/presetHeaders.js"
import { header } from "../request/header.js"
import { makeHttpMetrics } from "./httpMetrics.js"
import { makeRequestLog, type RequestLine, RequestLineWriter, type WriteRequestLine } from "./requestLog.js"
import { methodLabel, routeTemplate } from "./route.js"

/** What the route's code tells the middleware about a request: the span to run under, and why it failed. */
export interface RequestState {
  readonly span: Tracer.Span | undefined
  failure: Cause.Cause<unknown> | undefined
}

const STATE = "cofferRequest"

declare module "hono" {
  interface ContextVariableMap {
    [STATE]: RequestState
  }
}

/** The request's span, when tracing is on, for the use case to run under. */
export const requestSpan = (c: HonoContext): Tracer.Span | undefined => c.get(STATE)?.span

/** Records why the request failed; a 5xx logs it in its request line, so that each failure is logged once. */
export const noteFailure = (c: HonoContext, cause: Cause.Cause<unknown>): void => {
  const state = c.get(STATE)
  if (state !== undefined) state.failure = cause
}

/** What the middleware reads of the runtime, once. */
interface Instruments {
  readonly context: Context.Context<never>
  /** Whether `Info` lines pass the runtime's minimum level; 5xx lines are `Error` and always pass. */
  readonly info: boolean
  /** The tracer when tracing is on (`References.TracerEnabled`), else nothing: no span is made. */
  readonly tracer: Tracer.Tracer | undefined
  readonly clock: Clock.Clock
  /** The host's writer of the lines of answered requests (`RequestLineWriter`); 5xx lines go to the loggers. */
  readonly writer: WriteRequestLine | undefined
  readonly annotations: Readonly<Record<string, unknown>>
}

const instrumentsOf = (context: Context.Context<never>): Instruments => ({
  context,
  info: !LogLevel.isGreaterThan(Context.get(context, References.MinimumLogLevel), "Info"),
  tracer: Context.get(context, References.TracerEnabled) ? Context.get(context, Tracer.Tracer) : undefined,
  clock: Context.get(context, Clock.Clock),
  writer: Context.get(context, RequestLineWriter),
  annotations: Context.get(context, References.CurrentLogAnnotations),
})

/** The caller's span, from a valid W3C `traceparent` header. */
const callerSpan = (c: HonoContext): Option.Option<Tracer.AnySpan> => {
  const traceparent = header(c, "traceparent")
  return traceparent === undefined ? Option.none() : w3c(fromRecordUnsafe({ traceparent }))
}

const startSpan = (tracer: Tracer.Tracer, clock: Clock.Clock, c: HonoContext, method: string, route: string) => {
  const parent = callerSpan(c)
  const span = tracer.span({
    name: `${method} ${route}`,
    parent,
    annotations: Context.empty(),
    links: [],
    startTime: clock.currentTimeNanosUnsafe(),
    kind: "server",
    root: Option.isNone(parent),
    sampled: Option.match(parent, { onNone: () => true, onSome: (caller) => caller.sampled }),
  })
  span.attribute("http.request.method", method)
  span.attribute("http.route", route)
  return span
}

const endSpan = (span: Tracer.Span, clock: Clock.Clock, state: RequestState, status: number, requestId: string) => {
  span.attribute("http.response.status_code", status)
  span.attribute("coffer.request_id", requestId)
  const exit = status >= 500 ? Exit.failCause(state.failure ?? Cause.fail(`HTTP ${status}`)) : Exit.void
  span.end(clock.currentTimeNanosUnsafe(), exit)
}

/** Milliseconds to two decimals: enough to compare requests, short enough to read. */
const roundMs = (ms: number) => Math.round(ms * 100) / 100

/** A request under way, from `Telemetry.begin` to `Telemetry.end`. */
export interface Begun {
  readonly started: number
  readonly tools: Instruments | undefined
  readonly method: string
  readonly route: string
  readonly state: RequestState
}

/** The middleware's two halves, for a middleware that does more around the route (`../app/requestFrame.ts`). */
export interface Telemetry {
  /** Whether the runtime's services are read; until then `load` must be awaited before `begin`. */
  readonly loaded: () => boolean
  readonly load: () => Promise<unknown>
  /** `route`: the request's route template, when the caller has it already (`routeTemplate`). */
  readonly begin: (c: HonoContext, route?: string) => Begun
  readonly end: (c: HonoContext, begun: Begun) => void
}

export const makeTelemetry = <R, ER>(runtime: ManagedRuntime.ManagedRuntime<R, ER>): Telemetry => {
  const log = makeRequestLog(runtime)
  const record = makeHttpMetrics()
  let instruments: Instruments | undefined
  let loaded = false
  // A runtime whose layers cannot be built answers every request with an error; the request still gets through.
  const load = () =>
    runtime.context().then(
      (context) => {
        instruments = instrumentsOf(context as Context.Context<never>)
        loaded = true
      },
      () => {
        loaded = true
      },
    )
  const begin = (c: HonoContext, template?: string): Begun => {
    const started = performance.now()
    const tools = instruments
    const method = methodLabel(c.req.method)
    const route = template ?? routeTemplate(c)
    const span = tools?.tracer === undefined ? undefined : startSpan(tools.tracer, tools.clock, c, method, route)
    const state: RequestState = { span, failure: undefined }
    c.set(STATE, state)
    return { started, tools, method, route, state }
  }
  const end = (c: HonoContext, { started, tools, method, route, state }: Begun): void => {
    const ms = performance.now() - started
    const requestId = c.get("requestId")
    if (tools === undefined) return
    const status = statusOf(c.res)
    record(tools.context, method, route, status, ms / 1000)
    const { span } = state
    if (span !== undefined) endSpan(span, tools.clock, state, status, requestId)
    const failed = status >= 500
    if (!failed && !tools.info) return
    const fields: { -readonly [K in keyof RequestLine["fields"]]: RequestLine["fields"][K] } = {
      requestId,
      method,
      route,
      status,
      durationMs: roundMs(ms),
    }
    if (span !== undefined) fields.traceId = span.traceId
    const line: RequestLine = {
      level: failed ? "Error" : "Info",
      message: `${method} ${route} ${status}`,
      fields,
      cause: failed ? state.failure : undefined,
    }
    const written = !failed && tools.writer?.(line, tools.annotations, tools.clock.currentTimeMillisUnsafe()) === true
    if (!written) log(line)
  }
  return { loaded: () => loaded, load, begin, end }
}

export const requestTelemetry = <R, ER>(runtime: ManagedRuntime.ManagedRuntime<R, ER>): MiddlewareHandler => {
  const telemetry = makeTelemetry(runtime)
  return async (c, next) => {
    if (!telemetry.loaded()) await telemetry.load()
    const begun = telemetry.begin(c)
    await next()
    telemetry.end(c, begun)
  }
}
