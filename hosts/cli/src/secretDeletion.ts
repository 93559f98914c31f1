/**
 * `coffer secrets delete KEY…` around its requests. There is no batch endpoint, only `DELETE …/secrets/:key` per
 * key (seed 001 §4), so what can be known beforehand is checked beforehand, against the environment's list (one
 * request, not one per key): every name by the naming rules, every key present. A deletion can still fail midway
 * (a network error, a 403, a key someone else deleted meanwhile); the deletions stop there, and the failure says
 * which keys were deleted and which were not, rather than one line about the key it stopped on.
 */
import { parseSecretKey } from "@coffer/secrets"
import * as Result from "effect/Result"

/** The keys in the order first given, each once: `delete A B A` deletes two. */
export const uniqueKeys = (keys: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(keys)]

export interface DeletionCheck {
  /** Names the rules refuse, with the rule's message; nothing can be stored under them. */
  readonly invalid: ReadonlyArray<{ readonly key: string; readonly reason: string }>
  /** Valid names the environment does not hold. */
  readonly missing: ReadonlyArray<string>
}

/**
 * What stands in the way of deleting `keys` from an environment that holds `held`: names the naming rules refuse,
 * then keys it does not hold. A key the environment does hold is never refused by name: data imported from an
 * earlier implementation may have keys the rules no longer allow (seed 001 §4), and deleting one is how it goes.
 */
export const checkDeletion = (
  keys: ReadonlyArray<string>,
  held: { readonly has: (key: string) => boolean },
): DeletionCheck => {
  const absent = keys.filter((key) => !held.has(key))
  const invalid: Array<{ key: string; reason: string }> = []
  const missing: Array<string> = []
  for (const key of absent) {
    const parsed = parseSecretKey(key)
    if (Result.isFailure(parsed)) invalid.push({ key, reason: parsed.failure.message })
    else missing.push(key)
  }
  return { invalid, missing }
}

/** Where the deletions stopped: what was deleted before, the key they stopped on, and the keys never tried. */
export interface Stopped {
  readonly deleted: ReadonlyArray<string>
  readonly failedOn: string
  readonly rest: ReadonlyArray<string>
  /** The reason, one line: the service's answer, or why none came. */
  readonly reason: string
  /**
   * Whether the service answered for `failedOn`. Without an answer (no connection, no answer in time, another
   * server's page) the request may have deleted it or not, and the report says exactly that.
   */
  readonly answered: boolean
}

/**
 * `C: <reason>; deleted: A, B; not deleted: C, D`, every key named (this is the record of what happened), or
 * `A: <reason>; nothing was deleted` when it stopped on the first.
 */
export const stoppedReport = (stopped: Stopped): string => {
  const notDeleted = stopped.answered ? [stopped.failedOn, ...stopped.rest] : stopped.rest
  const parts = [`${stopped.failedOn}: ${stopped.reason}`]
  if (stopped.deleted.length > 0) parts.push(`deleted: ${stopped.deleted.join(", ")}`)
  if (!stopped.answered) parts.push(`${stopped.failedOn} may or may not be deleted (secrets list shows it)`)
  if (notDeleted.length > 0) {
    parts.push(
      stopped.deleted.length === 0 && stopped.answered
        ? "nothing was deleted"
        : `not deleted: ${notDeleted.join(", ")}`,
    )
  }
  return parts.join("; ")
}

/** What a run whose output was closed midway had done: `output closed; deleted: A, B; not deleted: C`. */
export const closedReport = (deleted: ReadonlyArray<string>, rest: ReadonlyArray<string>): string =>
  [
    `output closed; deleted: ${deleted.join(", ")}`,
    ...(rest.length > 0 ? [`not deleted: ${rest.join(", ")}`] : []),
  ].join("; ")
