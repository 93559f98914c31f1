/**
 * Secrets and their history (seed 001 §4 "Secrets", "Secret history"), sealed at rest as DESIGN.md says: every
 * version's value is sealed under its project's data key with associated data binding project, environment, the
 * secret's id, key and version (`sealing.ts`), so a ciphertext moved to any other row, another version of the same
 * row, or the same key re-created after a delete, does not open. A value that does not open is reported as
 * `SecretUnreadable`, never returned as something else.
 *
 * Writing: the next version is sealed for the number it will be stored under, then stored only if the secret is
 * still at the version that was read (SecretStore rule 3); when another writer came first, the whole step runs
 * again from a fresh read. So concurrent writers each get their own version, contiguous, none lost. A writer that
 * must not replace a change it has not seen says which version it read (`expectedVersion`, as Vault's `cas`): its
 * write lands only on that version, and a fresh read that finds another one ends it with `SecretChangedMeanwhile`.
 *
 * Reading a value and exporting are audited in the same transaction as the read (SecretStore rule 2). Keys and
 * environment names in paths are looked up as given: keys that break today's rules (imported data) stay
 * reachable, and anything else simply is not found.
 *
 * The hot use cases (read, write, list, exports) make their span only when tracing is on (`spanned`), as the
 * token check does: `Effect.fn`'s span costs ~10 µs a call even when no trace is exported (issue 10).
 */
import {
  BadRequest,
  type Cipher,
  Clock,
  type Forbidden,
  parseWholeNumber,
  Random,
  type StoreUnavailable,
  spanned,
  toIso,
} from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import { type Access, type Actor, reachEnvironment, readReached } from "../access.js"
import type { AuditEvent } from "../domain/audit.js"
import { toDotenv, toJsonExportText } from "../domain/dotenv.js"
import { type InvalidName, parseSecretKey, parseSecretValue, type ValueTooLarge } from "../domain/names.js"
import { byKey, byVersionDescending, sorted } from "../domain/order.js"
import {
  type EnvironmentGone,
  EnvironmentNotFound,
  type ProjectNotFound,
  SecretChangedMeanwhile,
  SecretNotFound,
  SecretUnreadable,
  SecretVersionNotFound,
  type VersionConflict,
} from "../errors.js"
import { type EnvironmentRecord, type SecretRecord, SecretStore } from "../SecretStore.js"
import { emailsOf, type SecretView, secretListItem, type VersionView } from "../views.js"
import { auditDraft, auditRecord } from "./audit.js"
import { openAllValues, openValue, type SealedAt, sealValue } from "./sealing.js"

/** What the secret use cases need. */
type Services = SecretStore | Cipher.Cipher | Clock.Clock | Random.Random
/** How reading a value can fail: out of reach (404), not allowed (403), missing (404), not decryptable (500). */
type ReadError =
  | ProjectNotFound
  | EnvironmentNotFound
  | SecretNotFound
  | SecretVersionNotFound
  | Forbidden
  | SecretUnreadable
  | StoreUnavailable
/** How writing a value can fail, besides the ways reading can (`SecretChangedMeanwhile`: only a check-and-set). */
type WriteError =
  | ReadError
  | BadRequest
  | InvalidName
  | ValueTooLarge
  | VersionConflict
  | SecretChangedMeanwhile
  | EnvironmentGone

const secretNotFound = () => new SecretNotFound()
const versionNotFound = () => new SecretVersionNotFound()

/**
 * Cipher failures say what went wrong for operators (a missing master key, a tampered blob) and never contain key
 * material or plaintext; they are logged, and the actor gets the one message below.
 */
const unreadable = (error: Cipher.CipherError) =>
  Effect.logWarning(`A secret value could not be opened or sealed: ${error.message}`).pipe(
    Effect.andThen(
      Effect.fail(
        new SecretUnreadable({
          message:
            "The stored value could not be decrypted: it was altered or moved, or its key is not available to this server",
        }),
      ),
    ),
  )

const open = (access: Access, at: SealedAt, sealed: string) =>
  openValue(access.project, at, sealed).pipe(Effect.catchTag("CipherError", unreadable))

const seal = (access: Access, at: SealedAt, value: string) =>
  sealValue(access.project, at, value).pipe(Effect.catchTag("CipherError", unreadable))

// UTF-8 cannot carry an unpaired surrogate (JSON can: "\ud800"); storing one would silently change the value.
const LONE_SURROGATE = /\p{Cs}/u

const parseValue = (value: string) =>
  LONE_SURROGATE.test(value)
    ? Effect.fail(
        new BadRequest({ message: "Secret value must be well-formed Unicode (it has an unpaired surrogate)" }),
      )
    : Effect.fromResult(parseSecretValue(value))

/**
 * Another writer may store the version this one read in between; each retry re-reads, so the policy only bounds
 * contention that never lets up. Jitter keeps a crowd of writers from colliding in lockstep. Built once: a policy
 * given as options is built again on every write.
 */
const contention = Schedule.spaced("2 millis").pipe(
  Schedule.jittered,
  Schedule.passthrough,
  Schedule.while(
    ({ input, attempt }) => (input as { readonly _tag: string })._tag === "VersionConflict" && attempt <= 100,
  ),
)

/** What a write takes as given about the secret it advances; each is checked again at every attempt. */
interface WriteConditions {
  /** The secret as already read with the environment (`reachEnvironment` with the key): the first attempt's read. */
  readonly read?: { readonly secret: SecretRecord | undefined } | undefined
  /**
   * A restore's: the secret whose old version is written, and that version's number, stored with the new version
   * so that the history can say which versions were restores. The secret (`secretId`) must still be the key's when
   * the write lands. Deleted meanwhile (or deleted and created anew), its history is gone, and the restore is a 404
   * rather than a secret brought back from nothing.
   */
  readonly restore?: { readonly secretId: string; readonly version: number } | undefined
  /**
   * The caller's check-and-set: the version the secret must be at (0: the key must not exist). Checked against
   * every fresh read, so a write that loses to another one (the store's `VersionConflict`) re-reads, finds the
   * secret moved on, and answers `SecretChangedMeanwhile` instead of landing on top.
   */
  readonly expectedVersion?: number | undefined
}

/**
 * Stores `value` as the next version of `key`, retrying from a fresh read while other writers come first. Each retry
 * reads the secret through the writer's reach again (`reachEnvironment`, the same one store call as reading the
 * secret alone): a writer removed from the project, moved down to `read`, or whose environment was deleted while
 * its write kept losing to others is refused (404, 403) instead of landing up to a hundred attempts later, after
 * the removal had answered.
 */
const writeNextVersion = (
  actor: Actor,
  reached: Access,
  reachedEnvironment: EnvironmentRecord,
  key: string,
  value: string,
  audit: (created: boolean) => AuditEvent,
  conditions: WriteConditions = {},
) => {
  let known = conditions.read
  let attempt = 0
  return Effect.gen(function* () {
    const store = yield* SecretStore
    const first = known
    known = undefined
    let access = reached
    let environment = reachedEnvironment
    let current: SecretRecord | undefined
    if (attempt++ === 0) {
      current = first === undefined ? yield* store.findSecret(environment.id, key) : first.secret
    } else {
      const again = yield* reachEnvironment(actor, reached.project.slug, reachedEnvironment.name, "writeSecrets", key)
      // Deleted and created again under its name: another environment, which this write never reached.
      if (again.environment.id !== reachedEnvironment.id) return yield* new EnvironmentNotFound()
      access = again.access
      environment = again.environment
      current = again.secret
    }
    const restore = conditions.restore
    if (restore !== undefined && current?.id !== restore.secretId) return yield* secretNotFound()
    const readVersion = current?.version ?? 0
    if (conditions.expectedVersion !== undefined && conditions.expectedVersion !== readVersion) {
      return yield* new SecretChangedMeanwhile({
        key,
        expectedVersion: conditions.expectedVersion,
        currentVersion: readVersion,
      })
    }
    const secretId = current?.id ?? (yield* Random.Random.use((random) => random.id))
    const at = yield* Clock.Clock.use((clock) => clock.now)
    const written = yield* store.writeSecret({
      environmentId: environment.id,
      key,
      expectedVersion: readVersion,
      secretId,
      value: yield* seal(access, { environmentId: environment.id, secretId, key, version: readVersion + 1 }, value),
      empty: value === "",
      userId: actor.userId,
      at,
      audit: yield* auditRecord(actor, access.project.id, environment.id, audit(current === undefined)),
      restoredFrom: restore?.version,
    })
    return { created: current === undefined, version: written.version }
  }).pipe(Effect.retry(contention))
}

export const listSecrets = Effect.fnUntraced(function* (actor: Actor, slug: string, env: string) {
  const { environment } = yield* reachEnvironment(actor, slug, env, "read")
  const store = yield* SecretStore
  const secrets = sorted(yield* store.listSecrets(environment.id), byKey)
  return { secrets: secrets.map(secretListItem) }
}, spanned("Secrets.listSecrets"))

/**
 * `expectedVersion` of a write: absent, or a whole number from 0 (the key must not exist) up to the largest integer
 * a JSON number carries exactly. The HTTP body's Schema says the same; this is for callers that come another way.
 */
const parseExpectedVersion = (value: number | undefined): Effect.Effect<number | undefined, BadRequest> =>
  value === undefined || (Number.isSafeInteger(value) && value >= 0)
    ? Effect.succeed(value)
    : Effect.fail(
        new BadRequest({ message: `expectedVersion must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}` }),
      )

/**
 * Creates the key at version 1, or stores the value as its next version. With `expectedVersion`, only on top of
 * that version (0: only as a new key); otherwise `SecretChangedMeanwhile`, and nothing is written or audited.
 */
export const setSecret = Effect.fnUntraced(function* (
  actor: Actor,
  slug: string,
  env: string,
  input: { readonly key: string; readonly value: string; readonly expectedVersion?: number | undefined },
): Effect.fn.Return<
  { readonly ok: true; readonly action: "created" | "updated"; readonly version: number },
  WriteError,
  Services
> {
  // The secret is read with the environment only under a valid key: an invalid one is refused once the project is
  // reached (out of reach stays 404), and never goes to the store (Postgres refuses a NUL with an error).
  const parsed = parseSecretKey(input.key)
  const valid = Result.isSuccess(parsed) && parsed.success === input.key
  const { access, environment, secret } = yield* reachEnvironment(
    actor,
    slug,
    env,
    "writeSecrets",
    valid ? input.key : undefined,
  )
  const key = yield* Effect.fromResult(parsed)
  const value = yield* parseValue(input.value)
  const expectedVersion = yield* parseExpectedVersion(input.expectedVersion)
  const { created, version } = yield* writeNextVersion(
    actor,
    access,
    environment,
    key,
    value,
    (isNew) => ({ action: isNew ? "secret.created" : "secret.updated", key }),
    { read: valid ? { secret } : undefined, expectedVersion },
  )
  return { ok: true as const, action: created ? ("created" as const) : ("updated" as const), version }
}, spanned("Secrets.setSecret"))

/** The current value; audited as `secret.read`, in one transaction with the read. */
export const getSecret = Effect.fnUntraced(function* (
  actor: Actor,
  slug: string,
  env: string,
  key: string,
): Effect.fn.Return<{ readonly secret: SecretView }, ReadError, Services> {
  const audit = yield* auditDraft(actor, { action: "secret.read", key })
  const { access, environment, secret, sealed } = yield* readReached(actor, slug, env, key, audit)
  if (secret === undefined || sealed === undefined) return yield* secretNotFound()
  const at = { environmentId: environment.id, secretId: secret.id, key, version: sealed.version }
  const value = yield* open(access, at, sealed.value)
  return { secret: { ...secretListItem(secret), value } }
}, spanned("Secrets.getSecret"))

/** The versions a secret can be at, as a number in a path or query may name them. */
const VERSIONS = { min: 1, max: Number.MAX_SAFE_INTEGER }

/**
 * `?expectedVersion=` of a deletion, by the kernel's one rule for query numbers: absent, or a version a secret can be
 * at (from 1). 0 has no meaning here: a key that does not exist is not deleted.
 */
const parseExpectedDeletion = (text: string | undefined) =>
  Effect.fromResult(parseWholeNumber("expectedVersion", text, VERSIONS))

/**
 * Deletes the secret with its whole history. With `expectedVersion`, only while the secret is the one read at that
 * version (a check-and-set, as for writes): a secret changed, or deleted and created again, since the caller read
 * it is left as it is (409 with the version it is at), so a deletion never takes a value its caller has not seen.
 */
export const deleteSecret = Effect.fn("Secrets.deleteSecret")(function* (
  actor: Actor,
  slug: string,
  env: string,
  key: string,
  expectedVersion?: string,
) {
  const version = yield* parseExpectedDeletion(expectedVersion)
  const { access, environment, secret } = yield* reachEnvironment(
    actor,
    slug,
    env,
    "writeSecrets",
    version === undefined ? undefined : key,
  )
  const store = yield* SecretStore
  const audit = yield* auditRecord(actor, access.project.id, environment.id, { action: "secret.deleted", key })
  if (version === undefined) {
    if (!(yield* store.deleteSecret({ environmentId: environment.id, key, audit }))) return yield* secretNotFound()
    return { ok: true as const }
  }
  const changedFrom = (current: SecretRecord | undefined) =>
    current === undefined
      ? secretNotFound()
      : new SecretChangedMeanwhile({ key, expectedVersion: version, currentVersion: current.version })
  if (secret === undefined || secret.version !== version) return yield* changedFrom(secret)
  const expected = { secretId: secret.id, version }
  if (yield* store.deleteSecret({ environmentId: environment.id, key, audit, expected })) return { ok: true as const }
  // Changed between the read above and the deletion: answered as it is now.
  return yield* changedFrom(yield* store.findSecret(environment.id, key))
})

const findSecret = Effect.fnUntraced(function* (environment: EnvironmentRecord, key: string) {
  const store = yield* SecretStore
  const secret = yield* store.findSecret(environment.id, key)
  if (secret === undefined) return yield* secretNotFound()
  return secret
})

/** Newest first, with who wrote each version and which version each restore brought back; never the values. */
export const listVersions = Effect.fn("Secrets.listVersions")(function* (
  actor: Actor,
  slug: string,
  env: string,
  key: string,
) {
  const { environment } = yield* reachEnvironment(actor, slug, env, "read")
  const secret: SecretRecord = yield* findSecret(environment, key)
  const store = yield* SecretStore
  const versions = sorted(yield* store.listVersions(secret.id), byVersionDescending)
  const emailOf = yield* emailsOf(versions.map((version) => version.userId))
  return {
    versions: versions.map((version) => ({
      version: version.version,
      createdAt: toIso(version.createdAt),
      userId: version.userId,
      userEmail: emailOf(version.userId),
      restoredFrom: version.restoredFrom,
    })),
  }
})

/**
 * `:n` of the history paths, by the one rule of both services' numbers (a schema's revision is read alike): a
 * number past what a store holds is a version that does not exist (404), not a malformed one.
 */
export const parseVersion = (text: string): Effect.Effect<number, BadRequest> =>
  // Never absent: the path always gives `text`.
  Effect.fromResult(parseWholeNumber("Version", text, VERSIONS)).pipe(Effect.map((version) => version ?? 0))

/** One version's value; audited as `secret.read` of `<KEY>@<n>`. */
export const getVersion = Effect.fn("Secrets.getVersion")(function* (
  actor: Actor,
  slug: string,
  env: string,
  key: string,
  n: string,
): Effect.fn.Return<{ readonly secret: VersionView }, ReadError | BadRequest, Services> {
  const { access, environment } = yield* reachEnvironment(actor, slug, env, "read")
  const version = yield* parseVersion(n)
  const store = yield* SecretStore
  const audit = yield* auditRecord(actor, access.project.id, environment.id, { action: "secret.read", key, version })
  const found = yield* store.readSecret({ environmentId: environment.id, key, version, audit })
  if (found === undefined) return yield* secretNotFound()
  if (found.sealed === undefined) return yield* versionNotFound()
  const at = { environmentId: environment.id, secretId: found.secret.id, key, version }
  const value = yield* open(access, at, found.sealed.value)
  return { secret: { key: found.secret.key, value, version, createdAt: toIso(found.sealed.createdAt) } }
})

/** The old value becomes a new version; audited as `secret.restored` of `<KEY>@<n>` (the version brought back). */
export const restoreVersion = Effect.fn("Secrets.restoreVersion")(function* (
  actor: Actor,
  slug: string,
  env: string,
  key: string,
  n: string,
): Effect.fn.Return<
  { readonly ok: true; readonly action: "restored"; readonly version: number },
  WriteError,
  Services
> {
  const { access, environment } = yield* reachEnvironment(actor, slug, env, "writeSecrets")
  const version = yield* parseVersion(n)
  const store = yield* SecretStore
  const found = yield* store.readSecret({ environmentId: environment.id, key, version })
  if (found === undefined) return yield* secretNotFound()
  if (found.sealed === undefined) return yield* versionNotFound()
  const at = { environmentId: environment.id, secretId: found.secret.id, key, version }
  const value = yield* open(access, at, found.sealed.value)
  const written = yield* writeNextVersion(
    actor,
    access,
    environment,
    key,
    value,
    () => ({ action: "secret.restored", key, version }),
    { read: { secret: found.secret }, restore: { secretId: found.secret.id, version } },
  )
  return { ok: true as const, action: "restored" as const, version: written.version }
})

/**
 * Every current value of the environment, opened, by key; audited as `secrets.exported` in one transaction. One
 * query, then one synchronous loop per data key version among the values (`openAllValues`; usually one).
 */
const exportEntries = Effect.fnUntraced(function* (actor: Actor, slug: string, env: string, format: "dotenv" | "json") {
  const { access, environment } = yield* reachEnvironment(actor, slug, env, "read")
  const store = yield* SecretStore
  const audit = yield* auditRecord(actor, access.project.id, environment.id, { action: "secrets.exported", format })
  const sealed = sorted(yield* store.exportSecrets({ environmentId: environment.id, audit }), byKey)
  const rows = sealed.map((entry) => ({ environmentId: environment.id, ...entry }))
  const values = yield* openAllValues(access.project, rows).pipe(Effect.catchTag("CipherError", unreadable))
  const entries = sealed.map((entry, i) => ({ key: entry.key, value: values[i]! }))
  return { environment, entries }
})

/** The `.env` file (seed 001 §4 rules 1-4) and the name it is offered under, `<env>.env`. */
export const exportDotenv = Effect.fnUntraced(function* (
  actor: Actor,
  slug: string,
  env: string,
): Effect.fn.Return<{ readonly filename: string; readonly text: string }, ReadError, Services> {
  const { environment, entries } = yield* exportEntries(actor, slug, env, "dotenv")
  return { filename: `${environment.name}.env`, text: toDotenv(entries) }
}, spanned("Secrets.exportDotenv"))

/** The JSON export as the text of its object: every key, exactly (seed 001 §4). */
export const exportJson = Effect.fnUntraced(function* (
  actor: Actor,
  slug: string,
  env: string,
): Effect.fn.Return<string, ReadError, Services> {
  const { entries } = yield* exportEntries(actor, slug, env, "json")
  return toJsonExportText(entries)
}, spanned("Secrets.exportJson"))
