/**
 * The Readiness port: whether the database answers, for `GET /readyz` (seed 001 §4). The SQL adapters
 * provide it with a trivial query; the memory adapter is always ready. A host adds the master key check
 * (`MasterKeyCheck.verify`): an instance whose key does not open the stored data is not ready.
 *
 * Rules every adapter MUST keep: `check` succeeds only after a real round trip to the backing store, never
 * from a cached answer; when the store cannot be reached it fails with `StoreUnavailable` quickly (well under
 * a second) instead of hanging; it has no side effects, since load balancers call it every few seconds.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { MasterKeyMismatch } from "./MasterKeyCheck.js"
import type { StoreUnavailable } from "./StoreUnavailable.js"

export class Readiness extends Context.Service<
  Readiness,
  {
    readonly check: Effect.Effect<void, StoreUnavailable | MasterKeyMismatch>
  }
>()("@coffer/kernel/Readiness") {}

/** For stores that live in the process and so are ready as long as it runs. */
export const layerAlwaysReady: Layer.Layer<Readiness> = Layer.succeed(Readiness, { check: Effect.void })
