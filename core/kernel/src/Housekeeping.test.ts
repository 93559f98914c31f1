import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import * as Housekeeping from "./Housekeeping.js"

/** Builds the housekeeping layer around a pass that counts its runs and fails every second one. */
const counting = Effect.gen(function* () {
  const runs = yield* Ref.make(0)
  const pass = Effect.flatMap(
    Ref.updateAndGet(runs, (n) => n + 1),
    (n) => (n % 2 === 0 ? Effect.fail("the database is down") : Effect.void),
  )
  return { runs, pass }
})

describe("Housekeeping.layer", () => {
  it("runs a pass at start and then every hour, going on after a failed pass, until the layer closes", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const { runs, pass } = yield* counting
          const scope = yield* Effect.scope
          yield* Layer.buildWithScope(Housekeeping.layer("test", pass), scope)
          yield* TestClock.adjust("1 millis")
          expect(yield* Ref.get(runs)).toBe(1)
          yield* TestClock.adjust("59 minutes")
          expect(yield* Ref.get(runs)).toBe(1)
          yield* TestClock.adjust("1 minute")
          expect(yield* Ref.get(runs)).toBe(2)
          // The second pass failed; the third still comes.
          yield* TestClock.adjust("3 hours")
          expect(yield* Ref.get(runs)).toBe(5)
        }),
      ).pipe(Effect.provide(TestClock.layer())),
    ))

  it("stops when its scope closes", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const { runs, pass } = yield* counting
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* Layer.buildWithScope(Housekeeping.layer("test", pass), yield* Effect.scope)
            yield* TestClock.adjust("1 millis")
          }),
        )
        yield* TestClock.adjust("5 hours")
        expect(yield* Ref.get(runs)).toBe(1)
      }).pipe(Effect.provide(TestClock.layer())),
    ))
})
