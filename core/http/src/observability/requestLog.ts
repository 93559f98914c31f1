/**
 * The one log line per request (issue 16), written through the runtime's own `Logger` so that the host's format
 * (`COFFER_LOG_FORMAT`), level (`COFFER_LOG_LEVEL`) and annotations (`service`) apply to it as to every other line.
 *
 * A request must not pay for an Effect run of its own just to log, so the middleware hands each line to a bounded
 * queue and one fiber on the runtime writes them, in order. Lines that arrive while the queue is full are dropped
 * rather than held: logs must never grow memory without bound behind a slow output. When the runtime is disposed
 * the lines still queued are written before the fiber ends.
 */
import { type Cause, Effect, type LogLevel, type ManagedRuntime, Queue } from "effect"

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

/** Lines waiting to be written at most; more are dropped. */
export const MAX_QUEUED_LINES = 10_000

const write = (line: RequestLine): Effect.Effect<void> =>
  Effect.logWithLevel(line.level)(...(line.cause === undefined ? [line.message] : [line.message, line.cause])).pipe(
    Effect.annotateLogs(line.fields),
  )

const writeAll = (lines: Iterable<RequestLine>) => Effect.forEach(lines, write, { discard: true })

/** A sink for request lines, written by one fiber on `runtime`, started with the first line. */
export const makeRequestLog = <R, ER>(runtime: ManagedRuntime.ManagedRuntime<R, ER>) => {
  const queue = Effect.runSync(Queue.make<RequestLine>({ capacity: MAX_QUEUED_LINES, strategy: "dropping" }))
  const drain = Effect.forever(Effect.flatMap(Queue.takeAll(queue), writeAll)).pipe(
    Effect.onInterrupt(() => Effect.flatMap(Queue.clear(queue), writeAll)),
  )
  let started = false
  return (line: RequestLine): void => {
    if (!started) {
      started = true
      runtime.runFork(drain)
    }
    Queue.offerUnsafe(queue, line)
  }
}
