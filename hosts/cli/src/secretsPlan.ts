/**
 * A change to an environment's secrets as keys to add, change and remove, worked out from what it holds and what is
 * wanted, and carried out a few writes at a time: `push`, `import`, `copy` and `environments create --copy-from`
 * all write through it, so that each follows one set of rules for values the service would refuse and for keys
 * someone else adds meanwhile.
 */
import * as Effect from "effect/Effect"
import { CofferFailure, refused } from "./failure.js"
import { makeProgress } from "./progress.js"
import { checkWritable } from "./secretRules.js"
import { deleteSecret, exportJson, me, setSecret, type Target } from "./secretsApi.js"
import { requireWriter } from "./writeAccess.js"

/** Requests in flight at once: enough to hide latency, few enough to leave the service room. */
const CONCURRENCY = 8

export interface Plan {
  readonly add: ReadonlyArray<string>
  readonly change: ReadonlyArray<string>
  readonly remove: ReadonlyArray<string>
}

/** What turns `current` into `wanted`; deletions only when `prune`. Keys sorted. */
export const planPush = (
  current: Readonly<Record<string, string>>,
  wanted: ReadonlyMap<string, string>,
  prune: boolean,
): Plan => ({
  add: [...wanted.keys()].filter((key) => !Object.hasOwn(current, key)).sort(),
  change: [...wanted.keys()].filter((key) => Object.hasOwn(current, key) && current[key] !== wanted.get(key)).sort(),
  remove: prune
    ? Object.keys(current)
        .filter((key) => !wanted.has(key))
        .sort()
    : [],
})

/** `failure` with the key it happened on in front, so a stopped push says where it stopped. */
const onKey = (key: string) => (failure: CofferFailure) =>
  new CofferFailure({ kind: failure.kind, status: failure.status, message: `${key}: ${failure.message}` })

/**
 * The environment's values, refused at once when the key can only read: a plan printed and then refused at its
 * first write reads as if part of it happened. The service still decides; this only says it before the plan.
 */
export const currentForWriting = (where: Target) =>
  Effect.all([exportJson(where), me(where.endpoint)], { concurrency: 2 }).pipe(
    Effect.flatMap(([current, identity]) => Effect.as(requireWriter(identity, "writing"), current)),
  )

/**
 * What becomes of a key the plan adds that someone else creates while the writes run. `overwrite` writes over it
 * (`push`, which makes the environment hold the file, and `import --on-conflict overwrite`). `skip` and `fail`
 * write each new key only as a new one (`expectedVersion` 0), so the service refuses it (409) rather than replace a
 * value the plan never saw: `skip` leaves it, `fail` stops there, as `import` does with a key that held another
 * value when it read the environment.
 */
export type AddedMeanwhile = "overwrite" | "skip" | "fail"

/**
 * Writes and deletes what `plan` says, with a progress bar on a terminal (ended on failure too); answers the new
 * keys it left because someone else added them meanwhile (`skip`), sorted.
 */
export const applyPlan = (
  where: Target,
  plan: Plan,
  values: ReadonlyMap<string, string>,
  addedMeanwhile: AddedMeanwhile = "overwrite",
) =>
  Effect.gen(function* () {
    const writes = [...plan.add, ...plan.change]
    const adds = new Set(plan.add)
    const left: Array<string> = []
    const progress = makeProgress("pushing", writes.length + plan.remove.length)
    const each = (keys: ReadonlyArray<string>, change: (key: string) => Effect.Effect<unknown, CofferFailure>) =>
      Effect.forEach(keys, (key) => Effect.andThen(Effect.mapError(change(key), onKey(key)), progress.tick), {
        concurrency: CONCURRENCY,
        discard: true,
      })
    const write = (key: string) => {
      const value = values.get(key) ?? ""
      if (addedMeanwhile === "overwrite" || !adds.has(key)) return setSecret(where, key, value)
      return setSecret(where, key, value, 0).pipe(
        Effect.catchIf(
          (failure) => failure.status === 409,
          () =>
            addedMeanwhile === "skip"
              ? Effect.sync(() => left.push(key))
              : Effect.fail(
                  refused(
                    "added by someone else during the import, so it was not overwritten; the keys written so far " +
                      "stay (run the import again to finish)",
                  ),
                ),
        ),
      )
    }
    yield* Effect.andThen(
      each(writes, write),
      each(plan.remove, (key) => deleteSecret(where, key)),
    ).pipe(Effect.ensuring(progress.done))
    return left.sort()
  })

/** The pairs `plan` writes, checked against the service's rules before the plan is said or carried out. */
export const checkPlan = (plan: Plan, values: ReadonlyMap<string, string>) =>
  checkWritable([...plan.add, ...plan.change].map((key) => [key, values.get(key) ?? ""] as const))
