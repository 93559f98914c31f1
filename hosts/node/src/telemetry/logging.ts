/**
 * Where and how the host writes logs (`COFFER_LOG_FORMAT`, `COFFER_LOG_LEVEL`), through Effect's `Logger`: one
 * JSON object per line on stdout (the production default), or Effect's pretty console output (development's).
 *
 * JSON lines are written in batches (`JSON_BATCH_WINDOW`), one write for many requests, which keeps a line per
 * request cheap under load; the batch still buffered when the process stops is written before it exits.
 *
 * The JSON line is flat, so that a log pipeline reads `status` or `requestId` without unwrapping: the time, the
 * level, the message, every annotation (`service`, and for a request line `requestId`, `method`, `route`,
 * `status`, `durationMs`), and the cause when there is one.
 */
import { Duration, Effect, Formatter, Layer, Logger, type LogLevel, References } from "effect"
import type { LogFormat } from "../config/operatingSettings.js"

/** Effect's structured fields, flattened into one JSON line. */
export const structuredLine = Logger.map(Logger.formatStructured, ({ timestamp, level, message, annotations, cause }) =>
  Formatter.formatJson({
    time: timestamp,
    level,
    message,
    ...annotations,
    ...(cause === undefined ? {} : { cause }),
  }),
)

const isPlain = (value: unknown): value is string | number | boolean =>
  typeof value === "string" || (typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean"

/**
 * The same line, written with `JSON.stringify` when the message and every annotation are plain strings, finite
 * numbers or booleans and there is no cause, as in every request line: Effect's structured formatter and its
 * cycle-safe JSON writer cost about 15 µs a line, a tenth of a token-checked read's CPU at one line per request
 * (issue 10). Anything else (a cause, an object, a redacted value) takes the general path above.
 */
export const jsonLine = Logger.make((options): string => {
  const { cause, date, fiber, logLevel, message } = options
  const annotations = fiber.getRef(References.CurrentLogAnnotations)
  const parts: ReadonlyArray<unknown> = Array.isArray(message) ? message : [message]
  if (cause.reasons.length > 0 || !parts.every(isPlain)) return structuredLine.log(options)
  // Built key by key, checking each annotation on the way: one pass, and no spread (the costlier form).
  const line: Record<string, unknown> = {
    time: date.toISOString(),
    level: logLevel.toUpperCase(),
    message: parts.length === 1 ? parts[0] : parts,
  }
  for (const key in annotations) {
    const value = annotations[key]
    if (!isPlain(value)) return structuredLine.log(options)
    line[key] = value
  }
  return JSON.stringify(line)
})

/** How long JSON lines wait to be written together: one write per batch instead of one per request. */
export const JSON_BATCH_WINDOW = Duration.millis(50)

/** JSON lines written to stdout in batches; what is buffered is written when the runtime's scope closes. */
const batchedJson = Logger.batched(jsonLine, {
  window: JSON_BATCH_WINDOW,
  flush: (lines) => Effect.sync(() => process.stdout.write(`${lines.join("\n")}\n`)),
})

/** The loggers and the minimum level, for every runtime of the process. */
export const loggingLayer = (format: LogFormat, level: LogLevel.LogLevel): Layer.Layer<never> =>
  Layer.merge(
    Logger.layer([format === "json" ? batchedJson : Logger.consolePretty()]),
    Layer.succeed(References.MinimumLogLevel)(level),
  )
