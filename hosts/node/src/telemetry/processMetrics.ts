/**
 * The process's own gauges in a service's metrics: resident memory, heap in use, and how late the event loop
 * runs (the delay a request waits before any of its code starts). Read when `/metrics` is scraped, registered in
 * the registry of the runtime the layer is built in.
 *
 * The event loop delay comes from `perf_hooks.monitorEventLoopDelay` (a histogram sampled by the runtime, reset at
 * each scrape so each figure covers the time since the last); where that is missing (Bun), from a timer that
 * measures how late it fires.
 */
import { monitorEventLoopDelay } from "node:perf_hooks"
import { getHeapSpaceStatistics } from "node:v8"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"

/** What the delay monitor reports, in seconds, over the window since it was last read. */
interface DelayMonitor {
  readonly read: () => { readonly p50: number; readonly p99: number; readonly max: number }
  readonly stop: () => void
}

const NANOS = 1e9
const TIMER_INTERVAL_MS = 100
/** How often the histogram's timer samples the loop, in milliseconds. */
const HISTOGRAM_RESOLUTION_MS = 10

const histogramMonitor = (): DelayMonitor => {
  const histogram = monitorEventLoopDelay({ resolution: HISTOGRAM_RESOLUTION_MS })
  histogram.enable()
  // The histogram records the time between its timer's runs, the resolution included: an idle loop reads 10 ms.
  // What is late is the rest, as the timer monitor measures it on Bun.
  const late = (nanos: number) => Math.max(0, nanos / NANOS - HISTOGRAM_RESOLUTION_MS / 1000)
  return {
    read: () => {
      const figures = {
        p50: late(histogram.percentile(50)),
        p99: late(histogram.percentile(99)),
        max: late(histogram.max),
      }
      histogram.reset()
      return figures
    },
    stop: () => histogram.disable(),
  }
}

const timerMonitor = (): DelayMonitor => {
  let delays: Array<number> = []
  let expected = performance.now() + TIMER_INTERVAL_MS
  const timer = setInterval(() => {
    const now = performance.now()
    delays.push(Math.max(0, now - expected) / 1000)
    expected = now + TIMER_INTERVAL_MS
  }, TIMER_INTERVAL_MS)
  timer.unref()
  const at = (sorted: ReadonlyArray<number>, share: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0
  return {
    read: () => {
      const sorted = delays.sort((a, b) => a - b)
      delays = []
      return { p50: at(sorted, 0.5), p99: at(sorted, 0.99), max: sorted.at(-1) ?? 0 }
    },
    stop: () => clearInterval(timer),
  }
}

/** The monitor the gauges read: Node's histogram, or a timer where there is none (Bun). */
export const startMonitor = (): DelayMonitor => {
  try {
    return histogramMonitor()
  } catch {
    return timerMonitor()
  }
}

const gauge = (name: string, description: string) => Metric.gauge(name, { description })

/** 0 where there is no V8: Bun's `node:v8` has no such space, or no heap spaces at all. */
const youngGenerationBytes = () => {
  try {
    return getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0
  } catch {
    return 0
  }
}

/** Registers the process gauges in the registry of the runtime it is built in, for as long as it lives. */
export const processMetricsLayer: Layer.Layer<never> = Layer.effectDiscard(
  Effect.gen(function* () {
    const context = yield* Effect.context<never>()
    const monitor = yield* Effect.acquireRelease(Effect.sync(startMonitor), (monitor) => Effect.sync(monitor.stop))
    // One read serves the three delay gauges of a scrape, which come one after another.
    let window = { at: 0, figures: { p50: 0, p99: 0, max: 0 } }
    const delay = (pick: "p50" | "p99" | "max") => () => {
      const now = performance.now()
      if (now - window.at > 1000) window = { at: now, figures: monitor.read() }
      return window.figures[pick]
    }
    const delayGauge = gauge(
      "coffer_process_event_loop_delay_seconds",
      "How late the event loop ran since the last scrape, in seconds (quantile 0.5, 0.99, or the maximum)",
    )
    const gauges: ReadonlyArray<readonly [Metric.Gauge<number>, () => number]> = [
      [
        gauge("coffer_process_resident_memory_bytes", "Resident memory of the process, in bytes"),
        () => process.memoryUsage().rss,
      ],
      [
        gauge("coffer_process_heap_used_bytes", "JavaScript heap in use, in bytes"),
        () => process.memoryUsage().heapUsed,
      ],
      [
        gauge(
          "coffer_process_young_generation_bytes",
          "V8's young generation (new space), in bytes: COFFER_YOUNG_GENERATION_MB bounds it on Node; 0 on Bun",
        ),
        youngGenerationBytes,
      ],
      [Metric.withAttributes(delayGauge, { quantile: "0.5" }), delay("p50")],
      [Metric.withAttributes(delayGauge, { quantile: "0.99" }), delay("p99")],
      [Metric.withAttributes(delayGauge, { quantile: "max" }), delay("max")],
    ]
    for (const [metric, read] of gauges) {
      const registration = Metric.registerUnsafe(metric, context, {
        get: () => ({ value: read() }),
        update: () => undefined,
        modify: () => undefined,
      })
      yield* Effect.addFinalizer(() => Effect.sync(registration.remove))
    }
  }),
)
