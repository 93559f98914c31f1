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
export const jsonLine = Logger.map(Logger.formatStructured, ({ timestamp, level, message, annotations, cause }) =>
  Formatter.formatJson({
    time: timestamp,
    level,
    message,
    ...annotations,
    ...(cause === undefined ? {} : { cause }),
  }),
)

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
