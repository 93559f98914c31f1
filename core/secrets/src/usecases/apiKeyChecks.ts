/**
 * What an API key stands for, read through the Cache port so that a busy key costs no store round trip per request
 * (issue 10: on Postgres the key lookup was one of an audited read's two round trips).
 *
 * A checked key is cached for `API_KEY_CHECK_TTL_MS` under its hash, stamped with the generation of key checks
 * (kernel `Generation`) read before the store was asked; an entry is believed only while its stamp is the current
 * generation. Every change that can alter what a key stands for renews that generation around itself
 * (`renewingKeyChecks`): a key deleted or rotated, a member removed (their keys go with them), a project deleted,
 * a holder's e-mail address changed at sign-in. So a deleted key is refused on the next request, on every instance
 * that shares the cache; instances that each cache in process learn of it through the generation's announcement
 * (`KeyChecks.layer`). Only what makes the actor is kept, never the key or anything secret.
 *
 * The store stays the truth: unknown keys are never cached (a guesser fills nothing), and when the cache cannot be
 * reached the check asks the store and caches nothing. A change refuses to happen when the cache cannot be told.
 * What is not cached is checked at every use as before: the holder's rights in the project (`access.ts`), the
 * key's expiry (against the cached `expiresAt`).
 */
import { type Cache, Generation, makeUseMarks, type Random, type StoreUnavailable } from "@coffer/kernel"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { KeyScope } from "../domain/permissions.js"
import { type ApiKeyUse, SecretStore } from "../SecretStore.js"

/** How long a checked key is cached; a renewed generation abandons it sooner. */
export const API_KEY_CHECK_TTL_MS = 60_000

/** The generation every cached key check is stamped with. */
export const KeyCheckGeneration: Generation.Generation = Generation.make(
  "secrets:api-keys:generation",
  "API-key checks",
)

/** What a key stands for, as the actor needs it; `email` is `null` once the holder's account is gone. */
export const CheckedKey = Schema.Struct({
  id: Schema.String,
  /** For the audit records the key's requests write; an entry cached before it was kept fails to decode: a miss. */
  name: Schema.String,
  projectId: Schema.String,
  userId: Schema.String,
  scope: KeyScope,
  expiresAt: Schema.NullOr(Schema.Number),
  email: Schema.NullOr(Schema.String),
})
export type CheckedKey = typeof CheckedKey.Type

const lookup = Generation.makeLookup(KeyCheckGeneration, {
  entryKey: (hash) => `secrets:api-key:${hash}`,
  ttlMs: API_KEY_CHECK_TTL_MS,
  value: CheckedKey,
})

const checkedOf = ({ key, holder }: ApiKeyUse): CheckedKey => ({
  id: key.id,
  name: key.name,
  projectId: key.projectId,
  userId: key.userId,
  scope: key.scope,
  expiresAt: key.expiresAt,
  email: holder?.email ?? null,
})

/** The key with SHA-256 `hash` as the cache or, failing that, the store has it; `undefined` for an unknown key. */
export const checkKey = (
  hash: string,
): Effect.Effect<CheckedKey | undefined, StoreUnavailable, SecretStore | Cache.Cache | Random.Random> =>
  lookup(
    hash,
    SecretStore.use((store) => store.findApiKeyByHash(hash)).pipe(
      Effect.map((found) => (found === undefined ? undefined : checkedOf(found))),
    ),
  )

/**
 * Runs a change that can alter what a key stands for between the two renewals of the key checks' generation: it is
 * refused (503) before anything changes when the cache cannot be reached, and every check cached meanwhile is
 * abandoned once it has committed.
 */
export const renewingKeyChecks: <A, E, R>(
  change: Effect.Effect<A, E, R>,
) => Effect.Effect<A, E | StoreUnavailable, R | Cache.Cache | Random.Random> =
  Generation.renewingAround(KeyCheckGeneration)

/** How often a key's `lastUsedAt` may be written. */
export const LAST_USED_RESOLUTION_MS = 60_000

/**
 * What this instance remembers of key checks: the keys whose use it has counted lately (`firstUse`: its first use
 * this instance sees in `LAST_USED_RESOLUTION_MS`, the only one counted with the cache), and, for as long as the
 * layer lives, the listener that forgets the generation when a change anywhere is announced.
 */
export class KeyChecks extends Context.Service<
  KeyChecks,
  { readonly firstUse: (keyId: string, now: number) => boolean }
>()("@coffer/secrets/KeyChecks") {
  static readonly layer: Layer.Layer<KeyChecks, never, Cache.Cache> = Layer.merge(
    Layer.sync(KeyChecks, () => KeyChecks.of({ firstUse: makeUseMarks(LAST_USED_RESOLUTION_MS) })),
    Generation.listener(KeyCheckGeneration),
  )
}
