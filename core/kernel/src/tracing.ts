/**
 * Spans that cost nothing when tracing is off. `Effect.fn("name")` and `Effect.withSpan` cost about 10–20 µs a
 * call even when no trace is exported (they record the call site's stack and build a span that goes nowhere),
 * which on a path run thousands of times a second (a token check, a store call) is more than the work itself
 * (issue 10). `spanned` asks the running fiber whether tracing is on (`References.TracerEnabled`, which the host
 * turns off unless it exports traces) and only then makes the span.
 *
 * For hot use cases: `Effect.fnUntraced(function* () {…}, spanned("Schemas.checkToken"))`; elsewhere `Effect.fn`
 * reads better and its cost does not matter.
 */
import * as Effect from "effect/Effect"
import * as References from "effect/References"
import type * as Tracer from "effect/Tracer"

export const spanned =
  (name: string, options?: Tracer.SpanOptions) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiber((fiber) =>
      fiber.getRef(References.TracerEnabled) ? Effect.withSpan(effect, name, options) : effect,
    )
