/**
 * Trace export over OTLP/HTTP through `effect/observability` (issue 16), when `OTEL_EXPORTER_OTLP_ENDPOINT` is set.
 * Effect's `OtlpTracer.layerFromConfig` reads OpenTelemetry's standard variables itself (endpoints, headers,
 * `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, batching and timeouts); it is handed exactly the `OTEL_*`
 * variables the settings kept, with the exporter defaulting to `otlp` as OpenTelemetry's does, and each service is
 * named `coffer-schemas` or `coffer-secrets` unless the operator names it.
 *
 * Off, no span is made at all (`References.TracerEnabled`), so untraced requests pay nothing for tracing. The
 * exporter's modules are loaded only when it is on.
 */
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as References from "effect/References"
import type { Tracing } from "../config/operatingSettings.js"
import { version } from "../version.js"

/** Whether the operator named the service, in either of OpenTelemetry's ways. */
const namesService = (variables: Readonly<Record<string, string>>) =>
  variables.OTEL_SERVICE_NAME !== undefined ||
  /(^|,)\s*service\.name\s*=/.test(variables.OTEL_RESOURCE_ATTRIBUTES ?? "")

export const tracingLayer = (tracing: Tracing | undefined, service: string): Layer.Layer<never> => {
  if (tracing === undefined) return Layer.succeed(References.TracerEnabled)(false)
  const variables = Redacted.value(tracing.variables)
  const env = {
    OTEL_TRACES_EXPORTER: "otlp",
    ...(namesService(variables) ? {} : { OTEL_SERVICE_NAME: `coffer-${service}` }),
    ...variables,
  }
  return Layer.unwrap(
    Effect.promise(async () => {
      const [{ OtlpTracer, OtlpSerialization }, { FetchHttpClient }] = await Promise.all([
        import("effect/observability"),
        import("effect/http"),
      ])
      const serialization =
        tracing.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf
      const exporter = OtlpTracer.layerFromConfig({ resource: { serviceVersion: version } }).pipe(
        Layer.provide([serialization, FetchHttpClient.layer, ConfigProvider.layer(ConfigProvider.fromEnv({ env }))]),
      )
      // It provides the tracer (a reference, which types do not show) and the exporter's flusher, which only the
      // exporter's own shutdown uses: nothing of ours asks for either by type.
      return exporter as Layer.Layer<unknown> as Layer.Layer<never>
    }),
  )
}
