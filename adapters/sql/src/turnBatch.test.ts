/**
 * One turn's calls run as one: each gets its own output; a failed batch of several runs each call alone, so one
 * call's bad input fails only that call; an unreachable store fails them all at once.
 */
import { StoreUnavailable } from "@coffer/kernel"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import { describe, expect, it } from "vitest"
import { turnBatch } from "./turnBatch.js"

class Refused {
  readonly _tag = "Refused"
}

/** A batch runner that records each batch it is given, doubling numbers and refusing any batch with a negative. */
const recording = (failure: () => Refused | StoreUnavailable = () => new Refused()) => {
  const batches: Array<ReadonlyArray<number>> = []
  const call = turnBatch((inputs: ReadonlyArray<number>) => {
    batches.push(inputs)
    return inputs.some((input) => input < 0) ? Effect.fail(failure()) : Effect.succeed(inputs.map((input) => input * 2))
  })
  return { batches, call }
}

const together = <A, E>(effects: ReadonlyArray<Effect.Effect<A, E>>) =>
  Effect.runPromise(Effect.all(effects.map(Effect.exit), { concurrency: "unbounded" }))

describe("turnBatch", () => {
  it("runs the calls of one turn once, in order, each answered its own output", async () => {
    const { batches, call } = recording()
    const outputs = await together([call(1), call(2), call(3)])
    expect(outputs).toEqual([Exit.succeed(2), Exit.succeed(4), Exit.succeed(6)])
    expect(batches).toEqual([[1, 2, 3]])
    // A later turn is a batch of its own.
    expect(await Effect.runPromise(call(5))).toBe(10)
    expect(batches).toEqual([[1, 2, 3], [5]])
  })

  it("runs each call of a failed batch alone, so that only the bad one fails", async () => {
    const { batches, call } = recording()
    const outputs = await together([call(1), call(-1), call(3)])
    expect(outputs[0]).toEqual(Exit.succeed(2))
    expect(Exit.isFailure(outputs[1]!) && Exit.findErrorOption(outputs[1]!)).toMatchObject({
      value: { _tag: "Refused" },
    })
    expect(outputs[2]).toEqual(Exit.succeed(6))
    expect(batches).toEqual([[1, -1, 3], [1], [-1], [3]])
  })

  it("fails every call at once when the store is out of reach", async () => {
    const unavailable = new StoreUnavailable({ store: "database", message: "down" })
    const { batches, call } = recording(() => unavailable)
    const outputs = await together([call(1), call(-1)])
    for (const output of outputs) expect(output).toEqual(Exit.fail(unavailable))
    expect(batches).toEqual([[1, -1]])
  })

  it("runs a batch with its caller's services: what it counts goes to the caller's metrics registry", async () => {
    const counted = Metric.counter("turn_batch_test_calls_total", { incremental: true })
    const call = turnBatch((inputs: ReadonlyArray<number>) => Effect.as(Metric.update(counted, inputs.length), inputs))
    const registry: Metric.MetricRegistry = new Map()
    await Effect.runPromise(
      Effect.all([call(1), call(2), call(3)], { concurrency: "unbounded" }).pipe(
        Effect.provideService(Metric.MetricRegistry, registry),
      ),
    )
    const counts = Metric.snapshotUnsafe(Context.make(Metric.MetricRegistry, registry)).map((metric) => [
      metric.id,
      (metric.state as Metric.CounterState<number>).count,
    ])
    expect(counts).toEqual([["turn_batch_test_calls_total", 3]])
  })
})
