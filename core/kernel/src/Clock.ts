/**
 * Wall-clock time as a port, so that expiry rules (sessions, invites, API keys, rate-limit windows) can be
 * tested without waiting. Reading the time cannot fail.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export class Clock extends Context.Service<
  Clock,
  {
    /** Milliseconds since the Unix epoch. */
    readonly now: Effect.Effect<number>
  }
>()("@coffer/kernel/Clock") {}

/** The system clock, through Effect's own `Clock` so that `TestClock` can drive it too. */
export const layer: Layer.Layer<Clock> = Layer.succeed(Clock, {
  now: Effect.clockWith((clock) => clock.currentTimeMillis),
})

/** A clock that starts at `start` and moves only when told, for tests. */
export const makeManual = (start: number) => {
  let current = start
  return {
    clock: Clock.of({ now: Effect.sync(() => current) }),
    set: (ms: number) => {
      current = ms
    },
    advance: (ms: number) => {
      current += ms
    },
  }
}
