/**
 * How big and how long cascades are (DESIGN.md "Cascade"): every save, and every new version that a range now
 * selects, re-resolves its dependents; these histograms let an operator see how far saves reach and what they
 * cost, through Effect's `Metric` (a host serves them at `/metrics`).
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"

const cascadeSize = Metric.histogram("coffer_schemas_cascade_size", {
  description: "Schemas re-resolved by one cascade",
  boundaries: [0, 1, 10, 100, 1_000, 10_000],
})

const cascadeDuration = Metric.histogram("coffer_schemas_cascade_duration_seconds", {
  description: "Time to plan and re-resolve one cascade, in seconds",
  boundaries: Metric.exponentialBoundaries({ start: 0.001, factor: 4, count: 9 }),
})

/** Records the size and duration of a cascade: for `Effect.fn`'s pipeline. */
export const measureCascade = <A extends ReadonlyArray<unknown>, E, R>(
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, R> =>
  Effect.timed(effect).pipe(
    Effect.tap(([duration, reprocessed]) =>
      Effect.andThen(
        Metric.update(cascadeSize, reprocessed.length),
        Metric.update(cascadeDuration, Duration.toSeconds(duration)),
      ),
    ),
    Effect.map(([, reprocessed]) => reprocessed),
  )
