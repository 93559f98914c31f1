/**
 * The one log line per request (issue 16), written through the runtime's own `Logger` so that the host's format
 * (`COFFER_LOG_FORMAT`), level (`COFFER_LOG_LEVEL`) and annotations (`service`) apply to it as to every other line.
 *
 * A host may instead write the lines itself (`RequestLineWriter`), when its format has a direct form that costs
 * less than the loggers' general one: handing a line to the loggers builds a log entry, an annotations record and
 * a fiber view per line, which made the line a fifth of a token-checked read's CPU (issue 10). The writer must
 * write exactly what the loggers would; the line of a 5xx always goes through the loggers, which know how to render
 * its cause.
 *
 * A request must not pay for an Effect run of its own just to log, so the middleware hands each line to a bounded
 * buffer, and the lines of one turn of the event loop are written together, in order, by one run on the runtime
 * when the turn ends (`setImmediate`). A fiber woken per batch (a queue's taker) cost more than the writing: each
 * wake of a suspended fiber captures and replays its async context. Lines that arrive while the buffer is full are
 * dropped rather than held: logs must never grow memory without bound behind a slow output. When the runtime is
 * disposed the lines still buffered are written first (a fiber that only waits for the runtime's end does it).
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as LogLevel from "effect/LogLevel"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import * as References from "effect/References"

/** What one request's line says; never a header, a cookie, a query string or a body. */
export interface RequestLine {
  readonly level: LogLevel.Severity
  readonly message: string
  readonly fields: {
    readonly requestId: string
    readonly method: string
    readonly route: string
    readonly status: number
    readonly durationMs: number
    readonly traceId?: string
  }
  /** Why a 5xx happened, logged here and nowhere else, so that each failure is logged once. */
  readonly cause: Cause.Cause<unknown> | undefined
}

/**
 * Writes the `Info` line of a request answered below 500, at `timeMillis`, with the runtime's log annotations, as
 * the runtime's loggers would have written it, and answers `true`; or answers `false`, writing nothing, and the
 * line goes to the loggers. The level has been checked against the runtime's minimum already.
 */
export type WriteRequestLine = (
  line: RequestLine,
  annotations: Readonly<Record<string, unknown>>,
  timeMillis: number,
) => boolean

/** The host's direct writer of request lines; unset by default, and the runtime's loggers write them. */
export const RequestLineWriter = Context.Reference<WriteRequestLine | undefined>("@coffer/http/RequestLineWriter", {
  defaultValue: () => undefined,
})

/** Lines waiting to be written at most; more are dropped. */
export const MAX_QUEUED_LINES = 10_000

/**
 * Writes a batch of lines on the draining fiber as `Effect.logWithLevel(…).pipe(Effect.annotateLogs(fields))` would,
 * line by line: the runtime's loggers, its minimum level, its annotations (`service`) with the line's fields added.
 * It does that work itself, in one step for the whole batch, instead of running two effects per line through the
 * fiber: a line per request made that machinery a tenth of a token-checked read's CPU (issue 10).
 */
const writeAll = (lines: Iterable<RequestLine>): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    const loggers = fiber.getRef(References.CurrentLoggers)
    if (loggers.size === 0) return Effect.void
    const minimum = fiber.getRef(References.MinimumLogLevel)
    const clock = fiber.getRef(Clock.Clock)
    const annotations = fiber.getRef(References.CurrentLogAnnotations)
    // What `annotateLogs` does, without a new context per line (adding to a deep context copies it whole): loggers
    // read the annotations through the fiber they are handed, so they are handed the fiber with the line's added.
    let current = annotations
    const getRef = <A>(ref: Context.Reference<A>): A =>
      ref === References.CurrentLogAnnotations ? (current as A) : fiber.getRef(ref)
    const annotated: typeof fiber = Object.create(fiber, { getRef: { value: getRef } })
    // Copied key by key into objects built the same way every time, which the engine keeps fast; a spread of the
    // two was the writer's largest cost.
    const keys = Object.keys(annotations)
    for (const line of lines) {
      if (LogLevel.isGreaterThan(minimum, line.level)) continue
      const merged: Record<string, unknown> = {}
      for (const key of keys) merged[key] = annotations[key]
      for (const key in line.fields) merged[key] = line.fields[key as keyof RequestLine["fields"]]
      current = merged
      const entry = {
        message: [line.message],
        logLevel: line.level,
        cause: line.cause ?? Cause.empty,
        fiber: annotated,
        date: new Date(clock.currentTimeMillisUnsafe()),
      }
      for (const logger of loggers) logger.log(entry)
    }
    return Effect.void
  })

/** A sink for request lines, written on `runtime` in batches, one per turn of the event loop. */
export const makeRequestLog = <R, ER>(runtime: ManagedRuntime.ManagedRuntime<R, ER>) => {
  let buffered: Array<RequestLine> = []
  let scheduled = false
  let started = false
  const take = () => {
    const lines = buffered
    buffered = []
    return lines
  }
  const flush = () => {
    scheduled = false
    // A runtime already disposed writes nothing: its end wrote what was buffered then.
    if (buffered.length > 0) runtime.runSyncExit(Effect.suspend(() => writeAll(take())))
  }
  const atEnd = Effect.never.pipe(Effect.onInterrupt(() => Effect.suspend(() => writeAll(take()))))
  return (line: RequestLine): void => {
    if (!started) {
      started = true
      runtime.runFork(atEnd)
    }
    if (buffered.length >= MAX_QUEUED_LINES) return
    buffered.push(line)
    if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
  }
}
