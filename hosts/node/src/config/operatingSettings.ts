/**
 * The settings for operating Coffer (README "Operating Coffer"): the log format and level, the token that guards
 * `/metrics`, and whether traces are exported over OTLP. Read with `Settings.parse`, by the same conventions
 * (surrounding whitespace ignored, an empty value unset, one line per bad setting, no secret ever echoed).
 *
 * Tracing follows OpenTelemetry's own variables rather than inventing ours: it is on when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, unless `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none`. Every `OTEL_*` variable is kept (redacted: headers may hold an API key) for the
 * exporter, which reads the rest itself (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, headers, timeouts…).
 */
import type * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

export type Env = Readonly<Record<string, string | undefined>>

export const LogFormat = Schema.Literals(["json", "pretty"])
export type LogFormat = typeof LogFormat.Type

export const LOG_LEVELS = [
  "All",
  "Trace",
  "Debug",
  "Info",
  "Warn",
  "Error",
  "Fatal",
  "None",
] as const satisfies ReadonlyArray<LogLevel.LogLevel>

/** OTLP over HTTP, as protobuf (OpenTelemetry's default) or JSON; gRPC is not spoken. */
export const OtlpProtocol = Schema.Literals(["http/protobuf", "http/json"])
export type OtlpProtocol = typeof OtlpProtocol.Type

export const Tracing = Schema.Struct({
  protocol: OtlpProtocol,
  /** Every `OTEL_*` variable, for the exporter to read the rest of its settings from. */
  variables: Schema.Redacted(Schema.Record(Schema.String, Schema.String)),
})
export type Tracing = typeof Tracing.Type

/** A guessable token would open the metrics to anyone. */
export const MIN_METRICS_TOKEN_LENGTH = 16

export const fields = {
  /** `COFFER_LOG_FORMAT`: one JSON object per line (production's default), or `pretty` text (development's). */
  logFormat: LogFormat,
  /** `COFFER_LOG_LEVEL`: the least severe level written; `info` by default. */
  logLevel: Schema.Literals(LOG_LEVELS),
  /** `COFFER_METRICS_TOKEN`: the bearer token `/metrics` asks for; unset, `/metrics` is not served. */
  metricsToken: Schema.UndefinedOr(Schema.Redacted(Schema.String)),
  /** OTLP trace export, from the `OTEL_*` variables; undefined when off. */
  tracing: Schema.UndefinedOr(Tracing),
}

export interface OperatingSettings {
  readonly logFormat: LogFormat
  readonly logLevel: LogLevel.LogLevel
  readonly metricsToken: Redacted.Redacted<string> | undefined
  readonly tracing: Tracing | undefined
}

const quoted = (value: string) => JSON.stringify(value)

const isHttpUrl = (raw: string) => URL.canParse(raw) && /^https?:$/.test(new URL(raw).protocol)

const readTracing = (value: (name: string) => string | undefined, env: Env, report: Report): Tracing | undefined => {
  let endpointSet = false
  for (const name of ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]) {
    const raw = value(name)
    if (raw === undefined) continue
    endpointSet = true
    // The scheme alone is echoed: an endpoint may carry credentials.
    if (!isHttpUrl(raw)) report(name, "expected an http(s) URL such as http://collector:4318")
  }
  const rawProtocol =
    value("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ?? value("OTEL_EXPORTER_OTLP_PROTOCOL") ?? "http/protobuf"
  const protocol = rawProtocol === "http/protobuf" || rawProtocol === "http/json" ? rawProtocol : undefined
  if (protocol === undefined) {
    report(
      value("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") === undefined
        ? "OTEL_EXPORTER_OTLP_PROTOCOL"
        : "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
      `expected http/protobuf or http/json (gRPC is not supported), got ${quoted(rawProtocol)}`,
    )
  }
  const exporters = (value("OTEL_TRACES_EXPORTER") ?? "otlp").split(",").map((entry) => entry.trim().toLowerCase())
  const disabled = value("OTEL_SDK_DISABLED")?.toLowerCase() === "true" || !exporters.includes("otlp")
  if (!endpointSet || disabled || protocol === undefined) return undefined
  const variables = Object.fromEntries(
    Object.entries(env).flatMap(([name, raw]) =>
      name.startsWith("OTEL_") && raw !== undefined && raw.trim() !== "" ? [[name, raw.trim()]] : [],
    ),
  )
  return { protocol, variables: Redacted.make(variables, { label: "OTEL_*" }) }
}

type Report = (name: string, problem: string) => void

/** The operating settings of `env`, reporting each bad one through `report`. */
export const read = (env: Env, environment: "development" | "production", report: Report): OperatingSettings => {
  const value = (name: string) => {
    const raw = env[name]?.trim()
    return raw === undefined || raw === "" ? undefined : raw
  }
  const rawFormat = value("COFFER_LOG_FORMAT")
  let logFormat: LogFormat = environment === "development" ? "pretty" : "json"
  if (rawFormat === "json" || rawFormat === "pretty") logFormat = rawFormat
  else if (rawFormat !== undefined) report("COFFER_LOG_FORMAT", `expected json or pretty, got ${quoted(rawFormat)}`)

  const rawLevel = value("COFFER_LOG_LEVEL")
  const level = LOG_LEVELS.find((candidate) => candidate.toLowerCase() === rawLevel?.toLowerCase())
  if (rawLevel !== undefined && level === undefined) {
    const names = LOG_LEVELS.map((name) => name.toLowerCase()).join(", ")
    report("COFFER_LOG_LEVEL", `expected one of ${names}, got ${quoted(rawLevel)}`)
  }

  const token = value("COFFER_METRICS_TOKEN")
  if (token !== undefined && token.length < MIN_METRICS_TOKEN_LENGTH) {
    report("COFFER_METRICS_TOKEN", `expected at least ${MIN_METRICS_TOKEN_LENGTH} characters (a long random value)`)
  }
  return {
    logFormat,
    logLevel: level ?? "Info",
    metricsToken: token === undefined ? undefined : Redacted.make(token, { label: "COFFER_METRICS_TOKEN" }),
    tracing: readTracing(value, env, report),
  }
}
