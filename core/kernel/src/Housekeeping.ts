/**
 * Housekeeping: deleting what no rule needs any more (expired sessions, spent invites), on a schedule, in every
 * instance. Correctness never depends on it: reads already ignore whatever it removes, so each pass is idempotent,
 * several instances may run it at once, and a failed pass only leaves the rows for the next one.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"

/** How often a pass runs: often enough that tables stay small, rarely enough to cost nothing. */
export const INTERVAL = Duration.hours(1)

/**
 * A layer that runs `pass` at once and then every `interval` for as long as the layer lives. A failed pass is
 * logged (its cause, which holds no secret: these are deletions by time) and the schedule goes on.
 */
export const layer = <E, R>(
  name: string,
  pass: Effect.Effect<unknown, E, R>,
  interval: Duration.Input = INTERVAL,
): Layer.Layer<never, never, R> =>
  Layer.effectDiscard(
    pass.pipe(
      Effect.catchCause((cause) => Effect.logWarning(`housekeeping: ${name} failed; it runs again later`, cause)),
      Effect.repeat(Schedule.spaced(interval)),
      Effect.forkScoped,
    ),
  )
