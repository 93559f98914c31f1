/**
 * A cache behind a switch, for the suites and the test kit alike: while `down` is set, every call fails as during a
 * Redis outage (`StoreUnavailable`).
 */
import { Cache, StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"

export interface Switch {
  down: boolean
}

const outage = () => new StoreUnavailable({ store: "cache", message: "connection refused (test outage)" })

/** Every method of `cache`, failing while `state.down` is set; `state.calls` (when present) counts the calls. */
export const behindSwitch = (
  cache: Cache.Cache["Service"],
  state: Switch & { calls?: number },
): Cache.Cache["Service"] => {
  const guard =
    <Args extends ReadonlyArray<unknown>, A, E, R>(call: (...args: Args) => Effect.Effect<A, E, R>) =>
    (...args: Args): Effect.Effect<A, E | StoreUnavailable, R> =>
      Effect.suspend((): Effect.Effect<A, E | StoreUnavailable, R> => {
        if (state.calls !== undefined) state.calls++
        return state.down ? Effect.fail(outage()) : call(...args)
      })
  return Cache.Cache.of({
    get: guard(cache.get),
    getMany: guard(cache.getMany),
    set: guard(cache.set),
    delete: guard(cache.delete),
    increment: guard(cache.increment),
    ttl: guard(cache.ttl),
    publish: guard(cache.publish),
    subscribe: guard(cache.subscribe),
  })
}
