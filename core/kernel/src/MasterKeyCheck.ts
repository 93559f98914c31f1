/**
 * Whether the configured master key is the one the stored data was written with. A wrong key that is merely
 * well-formed would otherwise start cleanly, answer every read with an error, and wrap new projects' data keys
 * under a key no correctly keyed instance can open. So a host checks the key at start and its readiness probe
 * checks it again, against a wrapped data key kept for the purpose (the canary, made at first start) or, in a
 * database written before canaries, a project's data key.
 *
 * The canary is a data key like any other (`Cipher.newDataKey`), so it is opened by the same keyring rule:
 * under a previous master key it still opens during a rotation, and `coffer keys rotate` re-wraps it with the
 * projects' keys (`rewrapCanary`).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Cipher from "./Cipher.js"
import type { StoreUnavailable } from "./StoreUnavailable.js"

export class MasterKeyMismatch extends Schema.TaggedError<MasterKeyMismatch>()("MasterKeyMismatch", {
  /** Names the setting, never a key or a key id. */
  message: Schema.String,
}) {}

export const MISMATCH_MESSAGE =
  "COFFER_MASTER_KEY does not open the data in this database (nor does any key of COFFER_MASTER_KEY_PREVIOUS): it is not the key this data was written with"

/**
 * Where the canary lives. Rules every adapter MUST keep: `create` never replaces a stored canary (two instances
 * starting at once keep the first one); `replace` is a compare-and-set.
 */
export class KeyCanary extends Context.Service<
  KeyCanary,
  {
    /** The stored canary, or undefined before the first start. */
    readonly read: Effect.Effect<string | undefined, StoreUnavailable>
    /** Stores `canary` unless one is stored; answers the one stored afterwards. */
    readonly create: (canary: string) => Effect.Effect<string, StoreUnavailable>
    /** Replaces the canary if it is still `expected`; false otherwise. */
    readonly replace: (input: {
      readonly expected: string
      readonly next: string
    }) => Effect.Effect<boolean, StoreUnavailable>
    /** Some project's wrapped data key, or undefined when there is none: the check of a database without canary. */
    readonly anyDataKey: Effect.Effect<string | undefined, StoreUnavailable>
    /**
     * A project (its slug) with a data key, current or older, that starts with none of `prefixes`, or undefined: a key
     * wrapped under a master key the keyring lacks (`Cipher.wrappedPrefixes`).
     */
    readonly projectWrappedElsewhere: (
      prefixes: ReadonlyArray<string>,
    ) => Effect.Effect<string | undefined, StoreUnavailable>
  }
>()("@coffer/kernel/KeyCanary") {}

/** The canary in process memory, for tests and stores that live in the process. */
export const layerMemory: Layer.Layer<KeyCanary> = Layer.sync(KeyCanary, () => {
  let stored: string | undefined
  return {
    read: Effect.sync(() => stored),
    create: (canary) => Effect.sync(() => (stored ??= canary)),
    replace: ({ expected, next }) =>
      Effect.sync(() => {
        if (stored !== expected) return false
        stored = next
        return true
      }),
    anyDataKey: Effect.succeed(undefined),
    projectWrappedElsewhere: () => Effect.succeed(undefined),
  }
})

const opens = (wrapped: string) =>
  Effect.flatMap(Cipher.Cipher, (cipher) => cipher.rewrap(wrapped)).pipe(
    Effect.asVoid,
    Effect.mapError(() => new MasterKeyMismatch({ message: MISMATCH_MESSAGE })),
  )

/** Fails when the keyring cannot open the canary, or without one a project's data key; no writes. */
export const verify: Effect.Effect<void, MasterKeyMismatch | StoreUnavailable, KeyCanary | Cipher.Cipher> = Effect.gen(
  function* () {
    const canaries = yield* KeyCanary
    const wrapped = (yield* canaries.read) ?? (yield* canaries.anyDataKey)
    if (wrapped !== undefined) yield* opens(wrapped)
  },
).pipe(Effect.withSpan("MasterKey.verify"))

/**
 * Fails when a project's data key is wrapped under a master key the keyring lacks. The canary alone cannot tell: an
 * instance still on the old key that creates a project after `coffer keys rotate` moved the canary wraps that
 * project's key under the old master key, and a start on the new key alone would pass the canary and serve that
 * project nothing but errors. Reads every wrapped key's prefix, once per start.
 */
const noProjectWrappedElsewhere = Effect.gen(function* () {
  const cipher = yield* Cipher.Cipher
  const slug = yield* (yield* KeyCanary).projectWrappedElsewhere(cipher.wrappedPrefixes)
  if (slug === undefined) return
  return yield* new MasterKeyMismatch({
    message:
      `the data key of project ${slug} is wrapped by a master key that neither COFFER_MASTER_KEY nor ` +
      "COFFER_MASTER_KEY_PREVIOUS holds (an instance on an older key wrote it after a rotation): add that key to " +
      "COFFER_MASTER_KEY_PREVIOUS, then run `coffer keys rotate`",
  })
})

/**
 * At start: `verify` and no project's data key wrapped elsewhere, then seal the canary if there is none yet (another
 * instance's, if it won, is checked).
 */
export const atStart: Effect.Effect<void, MasterKeyMismatch | StoreUnavailable, KeyCanary | Cipher.Cipher> = Effect.gen(
  function* () {
    yield* verify
    yield* noProjectWrappedElsewhere
    const canaries = yield* KeyCanary
    // Read again, and opened: another instance starting at the same moment may have sealed one since `verify`
    // looked, under its own key. Taken unchecked, both would start, one writing what the other cannot open.
    const existing = yield* canaries.read
    if (existing !== undefined) return yield* opens(existing)
    const canary = yield* Effect.orDie((yield* Cipher.Cipher).newDataKey)
    const stored = yield* canaries.create(canary)
    if (stored !== canary) yield* opens(stored)
  },
).pipe(Effect.withSpan("MasterKey.atStart"))

/** Re-wraps the canary under the current master key (`coffer keys rotate`); true when it was changed. */
export const rewrapCanary: Effect.Effect<boolean, MasterKeyMismatch | StoreUnavailable, KeyCanary | Cipher.Cipher> =
  Effect.gen(function* () {
    const canaries = yield* KeyCanary
    const cipher = yield* Cipher.Cipher
    const canary = yield* canaries.read
    if (canary === undefined) return false
    const keyId = yield* cipher.keyIdOf(canary).pipe(Effect.orElseSucceed(() => undefined))
    if (keyId === cipher.currentKeyId) return false
    const next = yield* cipher
      .rewrap(canary)
      .pipe(Effect.mapError(() => new MasterKeyMismatch({ message: MISMATCH_MESSAGE })))
    return yield* canaries.replace({ expected: canary, next })
  }).pipe(Effect.withSpan("MasterKey.rewrapCanary"))
