/**
 * What each service's runtime adds to the shared infrastructure so that it can be operated (issue 16): its own
 * metric registry (each port's `/metrics` shows its own service) with the process gauges, a `service` label on
 * every metric and log line it writes, and its tracer when traces are exported. The loggers and level are the
 * process's (`logging.ts`), given to every runtime.
 */
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as References from "effect/References"
import type { HostSettings } from "../config/hostSettings.js"
import { loggingLayer } from "./logging.js"
import { processMetricsLayer } from "./processMetrics.js"
import { tracingLayer } from "./tracing.js"

export const serviceTelemetryLayer = (settings: HostSettings, service: string): Layer.Layer<never> =>
  // Fresh: the runtimes share one memo map, where a layer value is built once, for the first service only.
  Layer.merge(Layer.fresh(processMetricsLayer), tracingLayer(settings.tracing, service)).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        Layer.sync(Metric.MetricRegistry)(() => new Map()),
        Layer.succeed(Metric.CurrentMetricAttributes)({ service }),
        Layer.succeed(References.CurrentLogAnnotations)({ service }),
      ),
    ),
    Layer.provideMerge(loggingLayer(settings.logFormat, settings.logLevel)),
  )

export { loggingLayer }
