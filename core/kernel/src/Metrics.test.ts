/**
 * The shared metrics count what happened: a credential check's outcome (accepted, rejected, or unavailable when a
 * store was down), and a cache read's (hit, miss, outage), in the registry of the runtime that runs them.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { describe, expect, it } from "vitest"
import * as Cache from "./Cache.js"
import { Unauthorized } from "./errors.js"
import * as Metrics from "./Metrics.js"
import { StoreUnavailable } from "./StoreUnavailable.js"

/** Runs `effect` with a fresh registry and returns the counters' values by id and attributes. */
const counted = async (effect: Effect.Effect<unknown, unknown>) => {
  const registry: Metric.MetricRegistry = new Map()
  await Effect.runPromise(Effect.exit(effect).pipe(Effect.provideService(Metric.MetricRegistry, registry)))
  const snapshot = Metric.snapshotUnsafe(Context.make(Metric.MetricRegistry, registry))
  return Object.fromEntries(
    snapshot.map((metric) => [
      `${metric.id}${JSON.stringify(Object.fromEntries(Object.entries(metric.attributes ?? {}).sort()))}`,
      (metric.state as Metric.CounterState<number>).count,
    ]),
  )
}

const down = new StoreUnavailable({ store: "cache", message: "connection refused" })

describe("Metrics.countCheck", () => {
  it("counts each check under its kind and outcome", async () => {
    const check = (outcome: Effect.Effect<string, Unauthorized | StoreUnavailable>) =>
      outcome.pipe(Metrics.countCheck("api_key"))
    const counts = await counted(
      Effect.all(
        [
          check(Effect.succeed("actor")),
          check(Effect.succeed("actor")),
          check(Effect.fail(new Unauthorized({ message: "Invalid API key" }))),
          check(Effect.fail(down)),
        ].map(Effect.exit),
      ),
    )
    expect(counts).toEqual({
      'coffer_credential_checks_total{"kind":"api_key","outcome":"accepted"}': 2,
      'coffer_credential_checks_total{"kind":"api_key","outcome":"rejected"}': 1,
      'coffer_credential_checks_total{"kind":"api_key","outcome":"unavailable"}': 1,
    })
  })
})

describe("Cache.withMetrics", () => {
  it("counts reads as hits, misses and outages, and changes no answer", async () => {
    const values = new Map([["present", "value"]])
    let reachable = true
    const base = {
      get: (key: string) => (reachable ? Effect.succeed(values.get(key)) : Effect.fail(down)),
    } as unknown as Cache.Cache["Service"]
    const cache = Cache.withMetrics(base)
    const answers: Array<unknown> = []
    const counts = await counted(
      Effect.gen(function* () {
        answers.push(yield* cache.get("present"), yield* cache.get("absent"), yield* cache.get("present"))
        reachable = false
        answers.push(yield* Effect.flip(cache.get("present")))
      }),
    )
    expect(answers).toEqual(["value", undefined, "value", down])
    expect(counts).toEqual({
      'coffer_cache_lookups_total{"outcome":"hit"}': 2,
      'coffer_cache_lookups_total{"outcome":"miss"}': 1,
      'coffer_cache_lookups_total{"outcome":"outage"}': 1,
    })
  })

  it("counts each key of a getMany, the way the credential checks read, and one outage per call", async () => {
    const values = new Map([["present", "value"]])
    let reachable = true
    const base = {
      getMany: (keys: ReadonlyArray<string>) =>
        reachable ? Effect.succeed(keys.map((key) => values.get(key))) : Effect.fail(down),
    } as unknown as Cache.Cache["Service"]
    const cache = Cache.withMetrics(base)
    const answers: Array<unknown> = []
    const counts = await counted(
      Effect.gen(function* () {
        answers.push(yield* cache.getMany(["present", "absent"]), yield* cache.getMany(["present", "present"]))
        reachable = false
        answers.push(yield* Effect.flip(cache.getMany(["present", "absent"])))
      }),
    )
    expect(answers).toEqual([["value", undefined], ["value", "value"], down])
    expect(counts).toEqual({
      'coffer_cache_lookups_total{"outcome":"hit"}': 3,
      'coffer_cache_lookups_total{"outcome":"miss"}': 1,
      'coffer_cache_lookups_total{"outcome":"outage"}': 1,
    })
  })
})
