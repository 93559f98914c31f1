/**
 * Where and how the host writes logs (`COFFER_LOG_FORMAT`, `COFFER_LOG_LEVEL`), through Effect's `Logger`: one
 * JSON object per line on stdout (the production default), or Effect's pretty console output (development's).
 *
 * The JSON line is flat, so that a log pipeline reads `status` or `requestId` without unwrapping: the time, the
 * level, the message, every annotation (`service`, and for a request line `requestId`, `method`, `route`,
 * `status`, `durationMs`), and the cause when there is one.
 */
import { Formatter, Layer, Logger, type LogLevel, References } from "effect"
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

/** The loggers and the minimum level, for every runtime of the process. */
export const loggingLayer = (format: LogFormat, level: LogLevel.LogLevel): Layer.Layer<never> =>
  Layer.merge(
    Logger.layer([format === "json" ? Logger.withConsoleLog(jsonLine) : Logger.consolePretty()]),
    Layer.succeed(References.MinimumLogLevel)(level),
  )
