/**
 * The metrics both services share, through Effect's own `Metric` module: credential checks by outcome and cache
 * lookups by outcome. They count in the registry of the runtime that runs the effect (`Metric.MetricRegistry`);
 * a host gives each service's runtime its own registry and a `service` attribute, so each port's `/metrics`
 * shows its own service.
 *
 * Label values are a closed set, and each labelled series is made once (`labelled`): attaching attributes on every
 * update would allocate a metric per request on the hot paths.
 */
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import { StoreUnavailable } from "./StoreUnavailable.js"

/** One series per value of `label`, made once. */
export const labelled = <const Value extends string, M extends Metric.Metric<never, unknown>>(
  metric: M,
  label: string,
  values: ReadonlyArray<Value>,
): Readonly<Record<Value, M>> =>
  Object.fromEntries(values.map((value) => [value, Metric.withAttributes(metric, { [label]: value })])) as Record<
    Value,
    M
  >

/** What a credential check can end in: let in, turned away, or not decided because a store was down. */
export type CheckOutcome = "accepted" | "rejected" | "unavailable"

const CHECK_OUTCOMES: ReadonlyArray<CheckOutcome> = ["accepted", "rejected", "unavailable"]

const credentialChecks = Metric.counter("coffer_credential_checks_total", {
  description: "Credential checks (API tokens, API keys) by kind and outcome",
  incremental: true,
})

/** The kinds of credential whose checks are counted. */
export type CredentialKind = "token" | "api_key"

const checksByKind: Record<CredentialKind, Readonly<Record<CheckOutcome, Metric.Counter<number>>>> = {
  token: labelled(Metric.withAttributes(credentialChecks, { kind: "token" }), "outcome", CHECK_OUTCOMES),
  api_key: labelled(Metric.withAttributes(credentialChecks, { kind: "api_key" }), "outcome", CHECK_OUTCOMES),
}

const outcomeOf = (exit: Exit.Exit<unknown, unknown>): CheckOutcome => {
  if (Exit.isSuccess(exit)) return "accepted"
  const error = Cause.findError(exit.cause)
  return error._tag === "Success" && error.success instanceof StoreUnavailable ? "unavailable" : "rejected"
}

/**
 * Counts the outcome of a credential check: success is `accepted`, `StoreUnavailable` `unavailable`, any other
 * failure `rejected`. For `Effect.fn`'s pipeline: `Effect.fn("…")(function* () {…}, Metrics.countCheck("token"))`.
 */
export const countCheck =
  (kind: CredentialKind) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    // The check's exit is counted in place, with the runtime's context read once around it: `onExit` and
    // `Metric.update` cost a few effects of their own, on every request of the token-checked read (issue 10).
    Effect.contextWith((context: Context.Context<never>) =>
      Effect.flatMap(Effect.exit(effect), (exit) => {
        checksByKind[kind][outcomeOf(exit)].updateUnsafe(1, context)
        return exit
      }),
    )

/** What a cache read found: a value, nothing, or a cache that could not be reached. */
export type LookupOutcome = "hit" | "miss" | "outage"

export const cacheLookups = labelled(
  Metric.counter("coffer_cache_lookups_total", {
    description: "Cache reads by outcome: hit, miss, or outage (the cache could not be reached)",
    incremental: true,
  }),
  "outcome",
  ["hit", "miss", "outage"],
)
