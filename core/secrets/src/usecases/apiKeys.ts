/**
 * API keys (seed 001 §4 "API keys", §5): a key belongs to one project and one person, has a scope, may expire, and
 * acts as its holder within its project only, never beyond the holder's current rights (checked at every use by
 * `access.ts`, not when the key is made). The raw key is answered only when it is created or rotated; the store
 * keeps its SHA-256, and lookups are by that hash.
 *
 * Managing keys is for sessions only. A person sees their own keys and every key of the projects they own; a key
 * outside that view answers 404. Rotating is for the holder only (the owner sees the key but gets 403): a new
 * secret for a key is something only the person who uses it should receive.
 *
 * What a key stands for is cached, and every change to it renews the cache's generation: `apiKeyChecks.ts`.
 *
 * `lastUsedAt` is kept without a database or cache write on every request: each instance counts a key's use with a
 * shared counter in the Cache once a minute, and the counter lets one request per key and minute through to the
 * store, whichever instance serves it (with several instances it may lag by up to two minutes).
 */
import {
  BadRequest,
  Cache,
  Clock,
  Forbidden,
  Hasher,
  Metrics,
  parseLabel,
  Random,
  spanned,
  toIsoOrNull,
  Unauthorized,
} from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { type Actor, type ApiKeyActor, projectNotFound, reachFor, reachProjectById, sessionOnly } from "../access.js"
import { newestFirst, sorted } from "../domain/order.js"
import { seesApiKey } from "../domain/people.js"
import { type KeyScope, mayHoldScope } from "../domain/permissions.js"
import { ApiKeyNotFound, ApiKeyRotatedMeanwhile } from "../errors.js"
import { type ApiKeyRecord, SecretStore } from "../SecretStore.js"
import { apiKeyView, emailsOf } from "../views.js"
import { checkKey, KeyChecks, LAST_USED_RESOLUTION_MS, renewingKeyChecks } from "./apiKeyChecks.js"
import { auditRecord } from "./audit.js"

/** API keys carry this prefix (DESIGN.md "Credentials"). */
export const API_KEY_PREFIX = "cfk_"
/** `cfk_` and 43 base64url characters (32 random bytes). */
const API_KEY_SHAPE = /^cfk_[A-Za-z0-9_-]{43}$/
/** How much of a key is kept in the clear to tell keys apart: the prefix and 8 characters (48 bits). */
export const KEY_PREFIX_LENGTH = API_KEY_PREFIX.length + 8
/** Seed 001 §8. */
export const MIN_EXPIRES_IN_DAYS = 1
export const MAX_EXPIRES_IN_DAYS = 3650
const DAY_MS = 24 * 60 * 60 * 1000
export const API_KEY_NAME_MAX_LENGTH = 100

const invalidKey = () => new Unauthorized({ message: "Invalid API key" })
const keyNotFound = () => new ApiKeyNotFound()

/** A key's name: a label (shown in lists and the audit log): trimmed, 1 to 100 characters, nothing invisible. */
export const parseApiKeyName = (input: string): Effect.Effect<string, BadRequest> =>
  Effect.fromResult(parseLabel("API key name", API_KEY_NAME_MAX_LENGTH, input)).pipe(
    Effect.mapError((message) => new BadRequest({ message })),
  )

/** `expiresInDays`: absent, or a whole number from 1 to 3650 (seed 001 §4). */
export const parseExpiresInDays = (value: number | undefined): Effect.Effect<number | undefined, BadRequest> =>
  value === undefined || (Number.isInteger(value) && value >= MIN_EXPIRES_IN_DAYS && value <= MAX_EXPIRES_IN_DAYS)
    ? Effect.succeed(value)
    : Effect.fail(
        new BadRequest({
          message: `expiresInDays must be a whole number from ${MIN_EXPIRES_IN_DAYS} to ${MAX_EXPIRES_IN_DAYS}`,
        }),
      )

/**
 * Records a use at most once a minute per key: this instance asks the shared counter only at the first use it sees
 * in the minute (`KeyChecks.firstUse`), and the counter lets one use a minute through to the store, whichever
 * instance serves it. Bookkeeping must never fail or slow the request it counts.
 */
const noteUse = (keyId: string, now: number) =>
  KeyChecks.use((checks) =>
    checks.firstUse(keyId, now)
      ? Effect.gen(function* () {
          const count = yield* (yield* Cache.Cache).increment(`secrets:api-key-used:${keyId}`, LAST_USED_RESOLUTION_MS)
          if (count === 1) yield* SecretStore.use((store) => store.touchApiKey(keyId, now))
        }).pipe(Effect.ignore)
      : Effect.void,
  )

/**
 * The actor an `Authorization: Bearer` key stands for. Unknown keys and keys of removed accounts are 401
 * "Invalid API key"; expired ones are 401 "API key has expired" (seed 001 §5.3). What the key stands for comes
 * through the cache (`apiKeyChecks.ts`).
 */
export const authenticateApiKey = Effect.fnUntraced(
  function* (token: string, ipAddress: string | null) {
    if (!API_KEY_SHAPE.test(token)) return yield* invalidKey()
    const key = yield* checkKey(yield* Hasher.Hasher.use((hasher) => hasher.sha256Hex(token)))
    if (key === undefined) return yield* invalidKey()
    const now = yield* Clock.Clock.use((clock) => clock.now)
    if (key.expiresAt !== null && key.expiresAt <= now) {
      return yield* new Unauthorized({ message: "API key has expired" })
    }
    if (key.email === null) return yield* invalidKey()
    yield* noteUse(key.id, now)
    const actor: ApiKeyActor = {
      kind: "apiKey",
      userId: key.userId,
      email: key.email,
      ipAddress,
      keyId: key.id,
      keyName: key.name,
      projectId: key.projectId,
      scope: key.scope,
      expiresAt: key.expiresAt,
    }
    return actor
  },
  Metrics.countCheck("api_key"),
  spanned("Secrets.authenticateApiKey"),
)

/**
 * What a key is and may do now, for `GET /api/auth/me`: its scope, expiry and project, and its holder's current
 * role there (`holderRole`), read as every use reads it. A key never exceeds that role (`can`), so a write key whose
 * holder is now a read member can only read, which its scope alone would not tell. 404 when the key's project is out
 * of its holder's reach, as on every route.
 */
export const apiKeyIdentity = Effect.fn("Secrets.apiKeyIdentity")(function* (actor: ApiKeyActor) {
  const { project, role } = yield* reachProjectById(actor, actor.projectId)
  return {
    id: actor.keyId,
    scope: actor.scope,
    holderRole: role,
    expiresAt: toIsoOrNull(actor.expiresAt),
    project: { id: project.id, slug: project.slug, name: project.name },
  }
})

/** Own keys and every key of owned projects; with `projectSlug`, that project's only (404 when out of reach). */
export const listApiKeys = Effect.fn("Secrets.listApiKeys")(function* (actor: Actor, projectSlug?: string) {
  const person = yield* sessionOnly(actor)
  const store = yield* SecretStore
  const projects =
    projectSlug === undefined
      ? (yield* store.listProjects(person.userId)).map(({ project }) => project)
      : [(yield* reachFor(person, projectSlug, "manageApiKeys")).project]
  const byId = new Map(projects.map((project) => [project.id, project]))
  const stored = yield* store.listApiKeys(projects.map((project) => project.id))
  const keys = sorted(
    stored.filter((key) => {
      const project = byId.get(key.projectId)
      return project !== undefined && seesApiKey(key, project, person.userId)
    }),
    newestFirst,
  )
  const emailOf = yield* emailsOf(keys.map((key) => key.userId))
  return { apiKeys: keys.map((key) => apiKeyView(key, emailOf(key.userId))) }
})

/** A new random key: the value to hand out once, its prefix and its hash. */
const newKey = Effect.gen(function* () {
  const key = yield* Random.Random.use((random) => random.token(API_KEY_PREFIX))
  return {
    key,
    prefix: key.slice(0, KEY_PREFIX_LENGTH),
    hash: yield* Hasher.Hasher.use((hasher) => hasher.sha256Hex(key)),
  }
})

/** What `POST /api/api-keys` takes. */
export interface NewApiKey {
  readonly name: string
  readonly projectSlug: string
  readonly scope?: KeyScope | undefined
  readonly expiresInDays?: number | undefined
}

/**
 * Every rule that decides whether this actor may create this key, without creating it: `createApiKey` runs it, and
 * so does approving a command-line login (`cliLogins.ts`), which must refuse exactly what creating a key refuses.
 */
export const checkNewApiKey = Effect.fnUntraced(function* (actor: Actor, input: NewApiKey) {
  const person = yield* sessionOnly(actor)
  const name = yield* parseApiKeyName(input.name)
  const expiresInDays = yield* parseExpiresInDays(input.expiresInDays)
  const access = yield* reachFor(person, input.projectSlug, "manageApiKeys")
  const scope = input.scope ?? "read"
  if (!mayHoldScope(access.role, scope)) {
    return yield* new Forbidden({ message: "Read members can create only read keys" })
  }
  return { person, name, expiresInDays, access, scope }
})

export const createApiKey = Effect.fn("Secrets.createApiKey")(function* (actor: Actor, input: NewApiKey) {
  const { person, name, expiresInDays, access, scope } = yield* checkNewApiKey(actor, input)
  const now = yield* Clock.Clock.use((clock) => clock.now)
  const { key, prefix, hash } = yield* newKey
  const apiKey: ApiKeyRecord = {
    id: yield* Random.Random.use((random) => random.id),
    projectId: access.project.id,
    userId: person.userId,
    name,
    keyPrefix: prefix,
    keyHash: hash,
    scope,
    expiresAt: expiresInDays === undefined ? null : now + expiresInDays * DAY_MS,
    lastUsedAt: null,
    createdAt: now,
  }
  const audit = yield* auditRecord(person, access.project.id, null, { action: "api_key.created", name })
  // Removed from the project since it was reached: nothing is stored, as for a request made a moment later.
  if (!(yield* SecretStore.use((store) => store.createApiKey({ apiKey, audit })))) return yield* projectNotFound()
  return { id: apiKey.id, key, prefix, name, scope, expiresAt: toIsoOrNull(apiKey.expiresAt) }
})

/** The key with this id if the person may see it (own key, or a key of a project they own); 404 otherwise. */
const visibleKey = Effect.fnUntraced(function* (actor: Actor, id: string) {
  const store = yield* SecretStore
  const key = yield* store.findApiKey(id)
  if (key === undefined) return yield* keyNotFound()
  if (key.userId === actor.userId) return key
  const access = yield* reachProjectById(actor, key.projectId).pipe(
    Effect.catchTag("ProjectNotFound", () => Effect.fail(keyNotFound())),
  )
  if (access.role !== "owner") return yield* keyNotFound()
  return key
})

/**
 * A new value for one's own key; the old value stops working at once. The expiry stays as it was unless
 * `expiresInDays` is given, which then counts from now.
 */
export const rotateApiKey = Effect.fn("Secrets.rotateApiKey")(function* (
  actor: Actor,
  id: string,
  input: { readonly expiresInDays?: number | undefined },
) {
  const person = yield* sessionOnly(actor)
  const expiresInDays = yield* parseExpiresInDays(input.expiresInDays)
  const current = yield* visibleKey(person, id)
  if (current.userId !== person.userId) {
    return yield* new Forbidden({ message: "Only the key's holder can rotate it" })
  }
  // A holder's role may have fallen since the key was made: a new value is a new credential, held to the rule
  // that made the key (a write key used now is capped at its holder's role anyway, but would write again on a
  // later promotion).
  const access = yield* reachProjectById(person, current.projectId).pipe(
    Effect.catchTag("ProjectNotFound", () => Effect.fail(keyNotFound())),
  )
  if (!mayHoldScope(access.role, current.scope)) {
    return yield* new Forbidden({
      message: "Read members can hold only read keys: delete this write key and create a read key instead",
    })
  }
  const now = yield* Clock.Clock.use((clock) => clock.now)
  // Its lifetime kept, an expired key would be rotated into a key that is dead already: it needs a new lifetime.
  if (expiresInDays === undefined && current.expiresAt !== null && current.expiresAt <= now) {
    return yield* new BadRequest({
      message: `This API key expired at ${toIsoOrNull(current.expiresAt)}; give expiresInDays to rotate it into a new lifetime`,
    })
  }
  const { key, prefix, hash } = yield* newKey
  const expiresAt = expiresInDays === undefined ? current.expiresAt : now + expiresInDays * DAY_MS
  const audit = yield* auditRecord(person, current.projectId, null, { action: "api_key.rotated", name: current.name })
  const store = yield* SecretStore
  const rotated = yield* store
    .rotateApiKey({ id, previousKeyHash: current.keyHash, keyHash: hash, keyPrefix: prefix, expiresAt, audit })
    .pipe(renewingKeyChecks)
  if (!rotated) {
    // Deleted meanwhile, or rotated by another request, whose caller holds the one value that now works: this
    // request's value is never stored, so it is not handed out.
    if ((yield* store.findApiKey(id)) === undefined) return yield* keyNotFound()
    return yield* new ApiKeyRotatedMeanwhile()
  }
  return { id, key, prefix, name: current.name, scope: current.scope, expiresAt: toIsoOrNull(expiresAt) }
})

/** Own key, or any key of an owned project; it stops working at once. */
export const deleteApiKey = Effect.fn("Secrets.deleteApiKey")(function* (actor: Actor, id: string) {
  const person = yield* sessionOnly(actor)
  const key = yield* visibleKey(person, id)
  const audit = yield* auditRecord(person, key.projectId, null, { action: "api_key.deleted", name: key.name })
  const deleted = yield* SecretStore.use((store) => store.deleteApiKey({ id, audit })).pipe(renewingKeyChecks)
  if (!deleted) return yield* keyNotFound()
  return { ok: true as const }
})
