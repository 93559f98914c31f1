/**
 * Noticing that an environment's secrets changed, for `coffer secrets run --watch`.
 *
 * Each look reads the environment's list (ids, keys and versions, never values; not audited) and compares it with
 * the last one. Only when the list moved are the values read, through the JSON export, which the audit log records
 * as one export per change rather than one per look. A change is reported only when the values the command would
 * get differ from those it runs with, so a write that put back the same value, or one to a key `--only` leaves
 * out, restarts nothing.
 *
 * The first list is read before the values the command starts with: a change landing between the two reads is
 * then seen by the next look, and at worst costs one export that finds nothing new.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type { CofferFailure } from "./failure.js"
import { note } from "./output.js"
import { listSecrets, type SecretItem, type Target } from "./secretsApi.js"

/** The values a command runs with. */
export type Values = Readonly<Record<string, string>>

/** The values a command runs with, and the keys of the environment left out of them (sorted; see `run.ts`). */
export interface Fitted {
  readonly values: Values
  readonly leftOut: ReadonlyArray<string>
}

/** What the list says of the keys that matter: a key's id and version change with every write, delete and restore. */
export const fingerprint = (items: ReadonlyArray<SecretItem>, wanted: ReadonlyArray<string> | undefined): string =>
  items
    .filter((item) => wanted === undefined || wanted.includes(item.key))
    .map((item) => `${item.key}\u0000${item.id}\u0000${item.version}`)
    .sort()
    .join("\n")

/** The keys whose values differ between `before` and `after`, added and removed ones included, sorted. */
export const changedKeys = (before: Values, after: Values): ReadonlyArray<string> =>
  [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((key) => !Object.hasOwn(before, key) || !Object.hasOwn(after, key) || before[key] !== after[key])
    .sort()

export interface Watch {
  /** Where to look; resolved at the first look that can (it may need the service, which may be down at first). */
  readonly target: Effect.Effect<Target, CofferFailure>
  readonly wanted: ReadonlyArray<string> | undefined
  readonly intervalSeconds: number
  /** The values the command would get now: the export, narrowed and checked as at the start. */
  readonly read: Effect.Effect<Fitted, CofferFailure>
  /** What the command is called in notes. */
  readonly program: string
}

/** The fingerprint of what `watch` looks at. */
const listed = (watch: Watch) =>
  Effect.map(Effect.flatMap(watch.target, listSecrets), (items) => fingerprint(items, watch.wanted))

/** The list's fingerprint now, or nothing when it cannot be read (the watch then learns it at a later look). */
export const currentFingerprint = (watch: Watch) => Effect.option(listed(watch))

/**
 * Looks every `intervalSeconds` until the values differ from `running`, and answers the new values (with the keys
 * left out of them) and the keys that changed; a key left out counts as absent. A look that fails is noted once (the command keeps the values it has) and the looks go on: a
 * service restarting, a key revoked or a key `--only` names deleted stops nothing that runs.
 */
export const nextChange = (watch: Watch, running: Values, known: Option.Option<string>) =>
  Effect.gen(function* () {
    let seen = known
    const look = Effect.gen(function* () {
      const now = yield* listed(watch)
      if (Option.isSome(seen) && seen.value === now) return undefined
      const fitted = yield* watch.read
      seen = Option.some(now)
      const keys = changedKeys(running, fitted.values)
      return keys.length === 0 ? undefined : { ...fitted, keys }
    })
    let failing = false
    while (true) {
      yield* Effect.sleep(`${watch.intervalSeconds} seconds`)
      const outcome = yield* Effect.result(look)
      if (Result.isFailure(outcome)) {
        if (!failing)
          yield* note(`cannot check for changes: ${outcome.failure.message}; ${watch.program} keeps its values`)
        failing = true
        continue
      }
      if (failing) yield* note("checking for changes again")
      failing = false
      if (outcome.success !== undefined) return { ...outcome.success, known: seen }
    }
  })
