/**
 * Where and how the host writes logs (`COFFER_LOG_FORMAT`, `COFFER_LOG_LEVEL`), through Effect's `Logger`: one
 * JSON object per line on stdout (the production default), or Effect's pretty console output (development's).
 *
 * JSON lines are written in batches (`JSON_BATCH_WINDOW`), one write for many requests, which keeps a line per
 * request cheap under load; the batch still buffered when the process stops is written before it exits. Request
 * lines join the same batch straight from the HTTP layer (`RequestLineWriter`), made as text in one step
 * (`makeRequestLines`) rather than through a log entry: the loggers' way cost several times the line itself, at a
 * line per request (issue 10). Both ways write the same line; a test holds them to it.
 *
 * The JSON line is flat, so that a log pipeline reads `status` or `requestId` without unwrapping: the time, the
 * level, the message, every annotation (`service`, and for a request line `requestId`, `method`, `route`,
 * `status`, `durationMs`), and the cause when there is one.
 */
import { type RequestLine, RequestLineWriter } from "@coffer/http"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Formatter from "effect/Formatter"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"
import type { LogFormat } from "../config/operatingSettings.js"
import { makeLineBatch } from "./lineBatch.js"

const isPlain = (value: unknown): value is string | number | boolean =>
  typeof value === "string" || (typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean"

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype

/** The keys of a line that fields logged with a message never replace. */
const RESERVED = new Set(["time", "level", "message", "cause"])

/**
 * A message logged as parts (`Effect.logWarning("Postgres: a connection in use failed", { error })`) as one line:
 * its text parts joined into the one string `message` every line has, the fields of its plain objects beside it,
 * and anything else (an `Error`, a redacted value) under `details`, as the general formatter renders it.
 */
const messageFields = (message: unknown): Record<string, unknown> => {
  const texts: Array<string> = []
  const fields: Record<string, unknown> = {}
  const details: Array<unknown> = []
  for (const part of Array.isArray(message) ? message : [message]) {
    if (isPlain(part)) texts.push(String(part))
    else if (isRecord(part)) {
      for (const key in part) if (!RESERVED.has(key)) fields[key] = part[key]
    } else details.push(part)
  }
  return { message: texts.join(" "), ...fields, ...(details.length === 0 ? {} : { details }) }
}

/** Effect's structured fields, flattened into one JSON line. */
export const structuredLine = Logger.map(Logger.formatStructured, ({ timestamp, level, message, annotations, cause }) =>
  Formatter.formatJson({
    time: timestamp,
    level,
    ...messageFields(message),
    ...annotations,
    ...(cause === undefined ? {} : { cause }),
  }),
)

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
    message: parts.length === 1 ? String(parts[0]) : parts.map(String).join(" "),
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

/** The JSON fields `jsonLine` writes for `annotations` after the message, or `undefined` if one is not plain. */
const fieldsText = (annotations: Readonly<Record<string, unknown>>): string | undefined => {
  let text = ""
  for (const key in annotations) {
    const value = annotations[key]
    if (!isPlain(value)) return undefined
    text += `,${JSON.stringify(key)}:${JSON.stringify(value)}`
  }
  return text
}

/** What a request line holds besides its time, id and duration, as text around them. */
interface LineShape {
  readonly level: string
  readonly method: string
  readonly route: string
  readonly status: number
  /** From after the time to the opening quote of the request id. */
  readonly head: string
  /** From the closing quote of the request id to the duration. */
  readonly tail: string
}

/** Shapes a writer keeps at most: one per route, method and status seen, a few hundred at most in practice. */
const MAX_SHAPES = 1_000

/** A request id that needs no escaping in JSON: what `resolveRequestId` lets through, and UUIDs. */
const PLAIN_ID = /^[\w\-=]*$/

/**
 * Makes request lines as `jsonLine` writes them, as text: the time, the id and the duration are the only parts
 * that change from one request to the next, so the rest (level, message, the runtime's annotations, method,
 * route, status) is made once per route and status and kept, and the time once per millisecond. Answers
 * `undefined` for annotations that are not plain (`jsonLine` takes the general path for those).
 */
export const makeRequestLines = () => {
  /** Per runtime's annotations: their text and the shapes made with it, or `null` when they are not plain. */
  const byAnnotations = new WeakMap<
    object,
    { readonly fields: string; readonly shapes: Map<string, LineShape> } | null
  >()
  let lastMillis = Number.NaN
  let lastTime = ""
  const shapeOf = (line: RequestLine, annotations: Readonly<Record<string, unknown>>): LineShape | undefined => {
    let known = byAnnotations.get(annotations)
    if (known === undefined) {
      const fields = fieldsText(annotations)
      known = fields === undefined ? null : { fields, shapes: new Map() }
      byAnnotations.set(annotations, known)
    }
    if (known === null) return undefined
    const { shapes } = known
    const { method, route, status } = line.fields
    const kept = shapes.get(line.message)
    if (kept?.level === line.level && kept.method === method && kept.route === route && kept.status === status)
      return kept
    const shape: LineShape = {
      level: line.level,
      method,
      route,
      status,
      head:
        `","level":"${line.level.toUpperCase()}","message":${JSON.stringify(line.message)}` +
        `${known.fields},"requestId":"`,
      tail: `","method":${JSON.stringify(method)},"route":${JSON.stringify(route)},"status":${status},"durationMs":`,
    }
    if (shapes.size >= MAX_SHAPES) shapes.clear()
    shapes.set(line.message, shape)
    return shape
  }
  return (
    line: RequestLine,
    annotations: Readonly<Record<string, unknown>>,
    timeMillis: number,
  ): string | undefined => {
    const shape = shapeOf(line, annotations)
    if (shape === undefined) return undefined
    if (timeMillis !== lastMillis) {
      lastMillis = timeMillis
      lastTime = new Date(timeMillis).toISOString()
    }
    const { requestId, durationMs, traceId } = line.fields
    const id = PLAIN_ID.test(requestId) ? requestId : JSON.stringify(requestId).slice(1, -1)
    const trace = traceId === undefined ? "" : `,"traceId":${JSON.stringify(traceId)}`
    return `{"time":"${lastTime}${shape.head}${id}${shape.tail}${durationMs}${trace}}`
  }
}

/**
 * Writes at once what the loggers hold. The host's own plain lines (`coffer schemas listening on …`) go straight to
 * stdout: a JSON line logged before one of them and still in its batch followed it, and read as though it had
 * happened after (the migrations, applied before any service listened, were logged after the "listening" lines).
 * So the host writes its lines through `sayAfterLogs`. Nothing is held in the pretty format, which writes each line
 * as it is logged.
 */
export const FlushLogs = Context.Reference<Effect.Effect<void>>("@coffer/node/FlushLogs", {
  defaultValue: () => Effect.void,
})

/** Writes `line` with `write` (stdout) after every line logged before it. */
export const sayAfterLogs = (write: (line: string) => void, line: string): Effect.Effect<void> =>
  Effect.gen(function* () {
    yield* yield* FlushLogs
    write(line)
  })

/**
 * JSON lines to stdout in batches (`lineBatch.ts`): the loggers' lines and the request lines in one batch, in the
 * order they came, written every `JSON_BATCH_WINDOW`, whenever the batch is full, before a line of the host's own
 * (`FlushLogs`), and when the runtime's scope closes.
 */
const jsonOutput: Layer.Layer<never> = Layer.unwrap(
  Effect.gen(function* () {
    const batch = makeLineBatch(process.stdout)
    const requestLine = makeRequestLines()
    const flush = Effect.sync(batch.flush)
    yield* Effect.sleep(JSON_BATCH_WINDOW).pipe(Effect.andThen(flush), Effect.forever, Effect.forkScoped)
    yield* Effect.addFinalizer(() => flush)
    const logger = Logger.make((options) => batch.add(jsonLine.log(options)))
    return Layer.mergeAll(
      Logger.layer([logger]),
      Layer.succeed(FlushLogs)(flush),
      Layer.succeed(RequestLineWriter)((line, annotations, timeMillis) => {
        const text = requestLine(line, annotations, timeMillis)
        if (text === undefined) return false
        batch.add(text)
        return true
      }),
    )
  }),
)

/** The loggers and the minimum level, for every runtime of the process. */
export const loggingLayer = (format: LogFormat, level: LogLevel.LogLevel): Layer.Layer<never> =>
  Layer.merge(
    format === "json" ? jsonOutput : Logger.layer([Logger.consolePretty()]),
    Layer.succeed(References.MinimumLogLevel)(level),
  )
