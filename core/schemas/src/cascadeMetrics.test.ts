/**
 * A cascade's size and duration land in the histograms of the runtime that ran it, once per cascade, and the
 * cascade's own answer is unchanged.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { describe, expect, it } from "vitest"
import { measureCascade } from "./cascadeMetrics.js"

describe("measureCascade", () => {
  it("records each cascade's size and duration, and passes its answer through", async () => {
    const registry: Metric.MetricRegistry = new Map()
    const answers = await Effect.runPromise(
      Effect.all([
        measureCascade(Effect.succeed(["a/1.0.0", "b/1.0.0", "c/1.0.0"])),
        measureCascade(Effect.succeed([]).pipe(Effect.delay("20 millis"))),
      ]).pipe(Effect.provideService(Metric.MetricRegistry, registry)),
    )
    expect(answers).toEqual([["a/1.0.0", "b/1.0.0", "c/1.0.0"], []])
    const states = Object.fromEntries(
      Metric.snapshotUnsafe(Context.make(Metric.MetricRegistry, registry)).map((metric) => [
        metric.id,
        metric.state as Metric.HistogramState,
      ]),
    )
    expect(states.coffer_schemas_cascade_size).toMatchObject({ count: 2, sum: 3, min: 0, max: 3 })
    expect(states.coffer_schemas_cascade_duration_seconds!.count).toBe(2)
    expect(states.coffer_schemas_cascade_duration_seconds!.max).toBeGreaterThanOrEqual(0.015)
  })
})
