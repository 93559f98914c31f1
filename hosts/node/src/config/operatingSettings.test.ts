/**
 * The operating settings through `Settings.parse`: log format and level, the metrics token, and tracing from
 * OpenTelemetry's own variables; each bad one stops the start with one line, and nothing secret is echoed.
 */
import { Encoding } from "@coffer/kernel"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import { describe, expect, it } from "vitest"
import * as Settings from "./Settings.js"

const PRODUCTION = { COFFER_MASTER_KEY: Encoding.toBase64(new Uint8Array(32).fill(1)) }

const ok = (env: Settings.Env) => Result.getOrThrow(Settings.parse({ ...PRODUCTION, ...env }))
const errorsOf = (env: Settings.Env) => {
  const result = Settings.parse({ ...PRODUCTION, ...env })
  if (Result.isSuccess(result)) throw new Error("expected the settings to be rejected")
  return result.failure
}

describe("logs", () => {
  it("are JSON at info in production, pretty in development, unless told otherwise", () => {
    expect(ok({})).toMatchObject({ logFormat: "json", logLevel: "Info" })
    expect(ok({ COFFER_ENV: "development" })).toMatchObject({ logFormat: "pretty", logLevel: "Info" })
    expect(ok({ COFFER_ENV: "development", COFFER_LOG_FORMAT: "json" }).logFormat).toBe("json")
    expect(ok({ COFFER_LOG_FORMAT: "pretty", COFFER_LOG_LEVEL: "WARN" })).toMatchObject({
      logFormat: "pretty",
      logLevel: "Warn",
    })
    expect(ok({ COFFER_LOG_LEVEL: "debug" }).logLevel).toBe("Debug")
  })

  it("reject an unknown format or level, naming the variable", () => {
    expect(errorsOf({ COFFER_LOG_FORMAT: "xml", COFFER_LOG_LEVEL: "loud" })).toEqual([
      'COFFER_LOG_FORMAT: expected json or pretty, got "xml"',
      'COFFER_LOG_LEVEL: expected one of all, trace, debug, info, warn, error, fatal, none, got "loud"',
    ])
  })
})

describe("the metrics token", () => {
  it("is unset by default (no /metrics) and kept redacted when set", () => {
    expect(ok({}).metricsToken).toBeUndefined()
    const token = ok({ COFFER_METRICS_TOKEN: "a-long-random-metrics-token" }).metricsToken!
    expect(Redacted.value(token)).toBe("a-long-random-metrics-token")
    expect(String(token)).not.toContain("a-long-random")
  })

  it("must be long enough not to be guessed, and a short one is not echoed", () => {
    const errors = errorsOf({ COFFER_METRICS_TOKEN: "short-secret" })
    expect(errors).toEqual(["COFFER_METRICS_TOKEN: expected at least 16 characters (a long random value)"])
  })
})

describe("tracing", () => {
  it("is off without an OTLP endpoint", () => {
    expect(ok({ OTEL_SERVICE_NAME: "coffer" }).tracing).toBeUndefined()
  })

  it("is on with an endpoint, speaking protobuf unless told JSON, and keeps every OTEL_* variable redacted", () => {
    const tracing = ok({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_EXPORTER_OTLP_HEADERS: "api-key=secret-value",
      COFFER_ENV: "production",
    }).tracing!
    expect(tracing.protocol).toBe("http/protobuf")
    expect(Redacted.value(tracing.variables)).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_EXPORTER_OTLP_HEADERS: "api-key=secret-value",
    })
    expect(String(tracing.variables)).not.toContain("secret-value")
    const json = ok({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://c/v1/traces",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    })
    expect(json.tracing!.protocol).toBe("http/json")
  })

  it("honours OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }
    expect(ok({ ...endpoint, OTEL_SDK_DISABLED: "true" }).tracing).toBeUndefined()
    expect(ok({ ...endpoint, OTEL_TRACES_EXPORTER: "none" }).tracing).toBeUndefined()
    expect(ok({ ...endpoint, OTEL_TRACES_EXPORTER: "console,otlp" }).tracing).toBeDefined()
  })

  it("rejects an endpoint that is not an http(s) URL without echoing it, and gRPC", () => {
    expect(
      errorsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4317?token=secret", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }),
    ).toEqual([
      "OTEL_EXPORTER_OTLP_ENDPOINT: expected an http(s) URL such as http://collector:4318",
      'OTEL_EXPORTER_OTLP_PROTOCOL: expected http/protobuf or http/json (gRPC is not supported), got "grpc"',
    ])
  })
})
