/**
 * Platforms and their versions: the data endpoints (list, read, create or update with a version list, add a
 * version) and the dashboard's create and delete.
 *
 * Decisions (also in the package README):
 * - `POST /api/{platform}` creates or updates. `name` must equal the platform in the path. Versions in the list
 *   that are new are added; versions left out are deleted, which needs the admin permission and is refused (409)
 *   while a surviving schema extends one (see `deletion.ts`). A version listed twice is a 400. Omitting `kind`
 *   keeps the stored one.
 * - Adding a version that is already listed changes nothing and still answers success: the request's aim holds.
 * - Adding versions re-resolves, in the same transaction, every schema whose `latest` or range now selects
 *   another version, and their dependents (DESIGN.md "Cascade").
 */
import {
  BadRequest,
  type Cache,
  Clock,
  type Forbidden,
  quote,
  type Random,
  type StoreUnavailable,
} from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { type Actor, canSee, requireDeleter, requireVisible, requireWriter } from "../access.js"
import type { InvalidVersion, ResolutionLimit, ResolveError } from "../domain/errors.js"
import { checkVersionCount } from "../domain/limits.js"
import {
  isValidPlatformName,
  PLATFORM_KINDS,
  type PlatformKind,
  validateKind,
  validatePlatformName,
} from "../domain/platform.js"
import { schemaKey } from "../domain/schemaId.js"
import { validateVersion } from "../domain/version.js"
import {
  type DeletionBlocked,
  InvalidKind,
  type InvalidPlatformName,
  PlatformExists,
  PlatformNotFound,
  VersionExists,
  VersionNotFound,
} from "../errors.js"
import { type PlatformOverview, type PlatformRecord, SchemaStore } from "../SchemaStore.js"
import { invalidateSchemas, invalidateSchemasAfterCommit } from "../schemaCache.js"
import { audit } from "./audit.js"
import { blockersOf, refuseIfBlocked } from "./deletion.js"
import { checkContent, saveWithin } from "./saving.js"
import { announceNarrowed, dropGrants, type RevokedTokens } from "./tokenChecks.js"
import { cascade, emptyView, ensurePlatforms, withVersions } from "./view.js"

type Services = SchemaStore | Cache.Cache | Random.Random | Clock.Clock

/** `/api/schemas`: every platform the actor may see, by name. */
export const listPlatforms = Effect.fn("Schemas.listPlatforms")(function* (
  actor: Actor,
): Effect.fn.Return<ReadonlyArray<PlatformRecord>, StoreUnavailable, SchemaStore> {
  const platforms = yield* SchemaStore.use((store) => store.listPlatforms)
  return platforms.filter((platform) => canSee(actor, platform.name))
})

/** One platform; 404 when it is missing or outside a token's scope. */
export const getPlatform = Effect.fn("Schemas.getPlatform")(function* (
  actor: Actor,
  name: string,
): Effect.fn.Return<PlatformRecord, PlatformNotFound | StoreUnavailable, SchemaStore> {
  yield* requireVisible(actor, name)
  const platform = isValidPlatformName(name) ? yield* SchemaStore.use((store) => store.findPlatform(name)) : undefined
  if (platform === undefined) return yield* new PlatformNotFound({ platform: name })
  return platform
})

/**
 * Dashboard: one platform with a summary of each version's schema (no contents), in one store call; read by
 * whoever may read the platform (`getPlatform`), 404 alike when it is missing or out of reach.
 */
export const getOverview = Effect.fn("Schemas.getOverview")(function* (
  actor: Actor,
  name: string,
): Effect.fn.Return<PlatformOverview, PlatformNotFound | StoreUnavailable, SchemaStore> {
  yield* requireVisible(actor, name)
  const overview = isValidPlatformName(name)
    ? yield* SchemaStore.use((store) => store.platformOverview(name))
    : undefined
  if (overview === undefined) return yield* new PlatformNotFound({ platform: name })
  return overview
})

const checkedKind = (kind: unknown): Effect.Effect<PlatformKind | undefined, InvalidKind> =>
  Effect.fromResult(validateKind(kind))

/** Dashboard: a new platform with no versions; 409 when the name is taken. */
export const createPlatform = Effect.fn("Schemas.createPlatform")(function* (
  actor: Actor,
  input: { readonly name: string; readonly kind?: unknown },
): Effect.fn.Return<
  PlatformRecord,
  Forbidden | InvalidPlatformName | InvalidKind | PlatformExists | StoreUnavailable,
  Services
> {
  yield* requireWriter(actor, input.name)
  const name = yield* Effect.fromResult(validatePlatformName(input.name))
  const kind = yield* checkedKind(input.kind)
  const now = yield* Clock.Clock.use((clock) => clock.now)
  yield* SchemaStore.use((store) =>
    store.transaction(
      Effect.gen(function* () {
        if (!(yield* store.insertPlatform(name, kind, now))) return yield* new PlatformExists({ platform: name })
        // A cached "platform missing" answer must not outlive the platform's creation.
        yield* invalidateSchemas
      }),
    ),
  )
  yield* invalidateSchemasAfterCommit
  return { name, kind, versions: [] }
})

/**
 * Dashboard: changes a platform's kind (display only, seed 000 §2), with the write rights of any other change
 * to the platform. Audited as `platform.kind` with the kind before (`null`: none) and after; setting the kind it
 * already has changes nothing and writes no entry.
 */
export const changeKind = Effect.fn("Schemas.changeKind")(function* (
  actor: Actor,
  name: string,
  kind: unknown,
): Effect.fn.Return<PlatformRecord, Forbidden | InvalidKind | PlatformNotFound | StoreUnavailable, Services> {
  const person = yield* requireWriter(actor, name)
  // Required here: `validateKind` lets an omitted kind through (it means "keep" elsewhere), so it sees `null`.
  const checked = yield* checkedKind(kind ?? null)
  if (checked === undefined) return yield* new InvalidKind({ received: "null", allowed: [...PLATFORM_KINDS] })
  if (!isValidPlatformName(name)) return yield* new PlatformNotFound({ platform: name })
  const store = yield* SchemaStore
  return yield* store.transaction(
    Effect.gen(function* () {
      const platform = yield* store.findPlatform(name)
      if (platform === undefined) return yield* new PlatformNotFound({ platform: name })
      if (platform.kind === checked) return platform
      yield* store.setKind(name, checked)
      yield* audit(person.email, "platform.kind", name, { from: platform.kind ?? null, to: checked })
      return { ...platform, kind: checked }
    }),
  )
})

export interface PlatformInput {
  readonly name: string
  readonly versions: ReadonlyArray<string>
  readonly kind?: unknown
}

const checkedVersions = (
  platform: string,
  versions: ReadonlyArray<string>,
): Effect.Effect<ReadonlyArray<string>, InvalidVersion | BadRequest | ResolutionLimit> =>
  Effect.gen(function* () {
    // The list is the platform's whole list afterwards: its length is checked before anything else.
    yield* Effect.fromResult(checkVersionCount(platform, versions.length))
    const seen = new Set<string>()
    for (const version of versions) {
      yield* Effect.fromResult(validateVersion(version))
      if (seen.has(version)) {
        return yield* new BadRequest({ message: `versions lists ${quote(version)} more than once` })
      }
      seen.add(version)
    }
    return versions
  })

/**
 * Adds `added` to a platform of the view and re-resolves what the change reaches; returns what the store must
 * write. The caller has already written the versions.
 */
const cascadeVersions = (platform: string, before: ReadonlyArray<string>, view: ReturnType<typeof emptyView>) =>
  Effect.gen(function* () {
    const after = view.platforms.get(platform)!.versions
    return yield* cascade(view, { _tag: "VersionsChanged", platform, before, after })
  })

/** `POST /api/{platform}`: create, or update kind and version list (rules 1 and 2 of seed 000 §4). */
export const putPlatform = Effect.fn("Schemas.putPlatform")(function* (
  actor: Actor,
  platform: string,
  input: PlatformInput,
): Effect.fn.Return<
  void,
  | Forbidden
  | BadRequest
  | InvalidPlatformName
  | InvalidKind
  | InvalidVersion
  | DeletionBlocked
  | ResolveError
  | StoreUnavailable,
  Services
> {
  const person = yield* requireWriter(actor, platform)
  const name = yield* Effect.fromResult(validatePlatformName(platform))
  if (input.name !== name) {
    return yield* new BadRequest({
      message: `name ${quote(input.name)} does not match the platform in the path, ${quote(name)}`,
    })
  }
  const kind = yield* checkedKind(input.kind)
  const versions = yield* checkedVersions(name, input.versions)
  const store = yield* SchemaStore
  const now = yield* Clock.Clock.use((clock) => clock.now)
  yield* store.transaction(
    Effect.gen(function* () {
      // Creating first settles a concurrent creation: whoever loses updates the platform the winner made.
      const created = yield* store.insertPlatform(name, kind, now)
      const view = emptyView()
      yield* ensurePlatforms(view, [name])
      const current = view.platforms.get(name)!
      if (!created && kind !== undefined && kind !== current.kind) {
        yield* store.setKind(name, kind)
        // Audited as the dashboard's change of kind is: one record whichever way the kind was changed.
        yield* audit(person.email, "platform.kind", name, { from: current.kind ?? null, to: kind })
      }
      // Sets, not `includes`: both lists may hold thousands of versions.
      const wanted = new Set(versions)
      const existing = new Set(current.versions)
      const removed = current.versions.filter((version) => !wanted.has(version))
      const added = versions.filter((version) => !existing.has(version))
      if (removed.length > 0) {
        yield* requireDeleter(actor, name)
        const gone = new Set(removed)
        const blockers = yield* blockersOf(
          name,
          current.versions,
          removed,
          (dependent) => !(dependent.platform === name && gone.has(dependent.version)),
        )
        const which = removed.map(quote).join(", ")
        yield* refuseIfBlocked(`version${removed.length === 1 ? "" : "s"} ${which} of platform "${name}"`, blockers)
        yield* store.removeVersions(name, removed)
        current.versions = current.versions.filter((version) => !gone.has(version))
        for (const version of removed) {
          current.schemas.delete(version)
          yield* audit(person.email, "version.delete", `${name}/${version}`, { omittedFrom: "versions list" })
        }
      }
      if (added.length > 0) {
        const before = current.versions
        yield* store.insertVersions(name, added, now)
        withVersions(current, added)
        yield* store.saveOutputs(yield* cascadeVersions(name, before, view))
      }
      yield* invalidateSchemas
    }),
  )
  yield* invalidateSchemasAfterCommit
})

/** What adding a version did. */
export interface AddedVersion {
  /** `false` when the platform had the version already (nothing changed). */
  readonly added: boolean
  /**
   * `platform/version` of each schema re-resolved because a `latest` or range reference now selects the new
   * version: without a schema it merges in as `{}`; with one, as that schema's output.
   */
  readonly reprocessed: ReadonlyArray<string>
}

/**
 * `POST /api/{platform}/versions`: the platform must exist. With `content`, the version is added with its schema
 * in the same transaction (its first revision), so a schema that moves onto it by `latest` or a range inherits
 * that schema at once instead of `{}` until a second request saves it; a content that cannot be saved adds
 * nothing, and a version that exists already is refused (`VersionExists`) rather than its schema replaced.
 */
export const addVersion = Effect.fn("Schemas.addVersion")(function* (
  actor: Actor,
  platform: string,
  version: string,
  content?: unknown,
): Effect.fn.Return<
  AddedVersion,
  Forbidden | InvalidVersion | PlatformNotFound | VersionNotFound | VersionExists | ResolveError | StoreUnavailable,
  Services
> {
  const person = yield* requireWriter(actor, platform)
  yield* Effect.fromResult(validateVersion(version))
  if (!isValidPlatformName(platform)) return yield* new PlatformNotFound({ platform })
  const checked = content === undefined ? undefined : yield* checkContent(content)
  const store = yield* SchemaStore
  // A full platform, or a schema for a version that exists, is refused before the write lock; the transaction
  // checks again against what it reads.
  const known = yield* store.findPlatform(platform)
  if (known !== undefined && !known.versions.includes(version)) {
    yield* Effect.fromResult(checkVersionCount(platform, known.versions.length + 1))
  }
  if (known?.versions.includes(version) === true && checked !== undefined) {
    return yield* new VersionExists({ platform, version })
  }
  const now = yield* Clock.Clock.use((clock) => clock.now)
  const changed = yield* store.transaction(
    Effect.gen(function* () {
      const view = emptyView()
      yield* ensurePlatforms(view, [platform])
      const current = view.platforms.get(platform)
      if (current === undefined) return yield* new PlatformNotFound({ platform })
      if (current.versions.includes(version)) {
        return checked === undefined ? undefined : yield* new VersionExists({ platform, version })
      }
      yield* Effect.fromResult(checkVersionCount(platform, current.versions.length + 1))
      const before = current.versions
      yield* store.insertVersions(platform, [version], now)
      withVersions(current, [version])
      const moved = yield* cascadeVersions(platform, before, view)
      yield* store.saveOutputs(moved)
      yield* invalidateSchemas
      const reprocessed = moved.map(schemaKey)
      if (checked === undefined) return reprocessed
      // Resolved afresh against what the transaction now holds: the outputs just written for `moved` are
      // written again where the schema reaches them.
      const saved = yield* saveWithin({ platform, version }, checked, { savedBy: person.email, savedAt: now })
      return [...new Set([...reprocessed, ...saved.reprocessed])]
    }),
  )
  if (changed === undefined) return { added: false, reprocessed: [] }
  yield* invalidateSchemasAfterCommit
  return { added: true, reprocessed: changed }
})

/** Dashboard: the platform, all its versions and their history, when nothing on another platform extends it. */
export const deletePlatform = Effect.fn("Schemas.deletePlatform")(function* (
  actor: Actor,
  name: string,
): Effect.fn.Return<void, Forbidden | PlatformNotFound | DeletionBlocked | StoreUnavailable, Services | RevokedTokens> {
  const person = yield* requireDeleter(actor, name)
  if (!isValidPlatformName(name)) return yield* new PlatformNotFound({ platform: name })
  const store = yield* SchemaStore
  const narrowed = yield* store.transaction(
    Effect.gen(function* () {
      const platform = yield* store.findPlatform(name)
      if (platform === undefined) return yield* new PlatformNotFound({ platform: name })
      const blockers = yield* blockersOf(
        name,
        platform.versions,
        platform.versions,
        (dependent) => dependent.platform !== name,
      )
      yield* refuseIfBlocked(`platform ${quote(name)}`, blockers)
      // Tokens that named it no longer do: a platform created later under the name is another platform.
      const narrowed = yield* store.removePlatform(name)
      yield* dropGrants(narrowed)
      yield* audit(person.email, "platform.delete", name, {
        versions: [...platform.versions],
        ...(platform.kind === undefined ? {} : { kind: platform.kind }),
        ...(narrowed.length === 0 ? {} : { tokens: narrowed.map((token) => token.id).sort() }),
      })
      yield* invalidateSchemas
      return narrowed
    }),
  )
  yield* announceNarrowed(narrowed)
  yield* invalidateSchemasAfterCommit
})

/** Dashboard: one version and its history, when no surviving schema extends it. */
export const deleteVersion = Effect.fn("Schemas.deleteVersion")(function* (
  actor: Actor,
  platform: string,
  version: string,
): Effect.fn.Return<
  void,
  Forbidden | PlatformNotFound | VersionNotFound | DeletionBlocked | StoreUnavailable,
  Services
> {
  const person = yield* requireDeleter(actor, platform)
  if (!isValidPlatformName(platform)) return yield* new PlatformNotFound({ platform })
  const store = yield* SchemaStore
  yield* store.transaction(
    Effect.gen(function* () {
      const current = yield* store.findPlatform(platform)
      if (current === undefined) return yield* new PlatformNotFound({ platform })
      if (!current.versions.includes(version)) return yield* new VersionNotFound({ platform, version })
      const blockers = yield* blockersOf(
        platform,
        current.versions,
        [version],
        (dependent) => !(dependent.platform === platform && dependent.version === version),
      )
      yield* refuseIfBlocked(`version ${quote(version)} of platform ${quote(platform)}`, blockers)
      yield* store.removeVersions(platform, [version])
      yield* audit(person.email, "version.delete", `${platform}/${version}`)
      yield* invalidateSchemas
    }),
  )
  yield* invalidateSchemasAfterCommit
})
