/**
 * Master-key rotation (`coffer keys rotate`; adapters/crypto README "Rotating the master key"): every project's
 * data key, every version of it (`coffer keys rotate --data-keys` adds versions), is re-wrapped under the current
 * master key. Only the wraps change: sealed values stay as they are,
 * because the data key inside each wrap is the same, so values read before, during and after the run.
 *
 * Safe while the service runs: each replacement is a compare-and-set on the wrap that was read, so a project
 * created or rotated meanwhile is never overwritten with a stale wrap; a run can be repeated, and finds nothing
 * left to do once every key names the current master key.
 */
import { Cipher, type StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { SecretStore } from "../SecretStore.js"

export interface RewrapReport {
  /** Data keys in the store: every version of every project's. */
  readonly total: number
  /** Data keys re-wrapped by this run. */
  readonly rewrapped: number
  /** Data keys already under the current master key. */
  readonly current: number
  /** Data keys that could not be unwrapped (their master key is not in the keyring), with why. */
  readonly failed: ReadonlyArray<RewrapFailure>
  /** The id of the master key every re-wrapped data key is now under. */
  readonly currentKeyId: string
}

/** A data key that could not be unwrapped: its project (id and slug), its version, and why. */
export interface RewrapFailure {
  readonly projectId: string
  readonly slug: string
  readonly version: number
  readonly reason: string
}

/** Drops a data key's unwrapped copy from this process's memory (its project deleted, its wrap replaced). */
export const forgetDataKey = (dataKey: string): Effect.Effect<void, never, Cipher.Cipher> =>
  Cipher.Cipher.use((cipher) => cipher.forget(dataKey))

/** What a re-wrapping run needs: the store and the cipher with the new master key current. */
type Services = SecretStore | Cipher.Cipher

export const rewrapDataKeys = Effect.fn("Secrets.rewrapDataKeys")(function* (): Effect.fn.Return<
  RewrapReport,
  StoreUnavailable,
  Services
> {
  const store = yield* SecretStore
  const cipher = yield* Cipher.Cipher
  const keys = yield* store.listDataKeys
  let rewrapped = 0
  let current = 0
  const failed: Array<RewrapFailure> = []
  for (const { projectId, slug, version, dataKey } of keys) {
    const keyId = yield* cipher.keyIdOf(dataKey).pipe(Effect.orElseSucceed(() => undefined))
    if (keyId === cipher.currentKeyId) {
      current++
      continue
    }
    const next = yield* Effect.result(cipher.rewrap(dataKey))
    if (next._tag === "Failure") {
      failed.push({ projectId, slug, version, reason: next.failure.message })
      continue
    }
    // Only the wrap that was read is replaced; a project deleted meanwhile is simply gone.
    if (yield* store.replaceDataKey({ projectId, version, expected: dataKey, next: next.success })) {
      rewrapped++
      yield* cipher.forget(dataKey)
    }
  }
  const report: RewrapReport = { total: keys.length, rewrapped, current, failed, currentKeyId: cipher.currentKeyId }
  return report
})
