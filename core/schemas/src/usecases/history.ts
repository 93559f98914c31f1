/**
 * A schema's history for the dashboard (every save is a revision, SchemaStore rule 11): a page of revisions,
 * newest first, and one revision with the content saved and the output that save produced.
 *
 * Paging is by revision number: a page ends with `next`, the number of its last (oldest) revision, which the
 * following request passes as `before`. Revisions are numbered from 1 without gaps, so a page that reaches
 * revision 1 has no `next`.
 */
import { BadRequest, type StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { type Actor, requireVisible } from "../access.js"
import { isValidPlatformName } from "../domain/platform.js"
import type { SchemaId } from "../domain/schemaId.js"
import { isValidVersion } from "../domain/version.js"
import { PlatformNotFound, RevisionNotFound, VersionNotFound } from "../errors.js"
import { type Revision, type RevisionSummary, SchemaStore } from "../SchemaStore.js"

export const DEFAULT_REVISION_PAGE = 50
export const MAX_REVISION_PAGE = 200

/** 404 unless the platform exists (and the actor may see it) and lists the version. */
export const requireVersion = Effect.fnUntraced(function* (
  actor: Actor,
  id: SchemaId,
): Effect.fn.Return<void, PlatformNotFound | VersionNotFound | StoreUnavailable, SchemaStore> {
  yield* requireVisible(actor, id.platform)
  if (!isValidPlatformName(id.platform)) return yield* new PlatformNotFound({ platform: id.platform })
  if (!isValidVersion(id.version)) return yield* new VersionNotFound(id)
  const platform = yield* SchemaStore.use((store) => store.findPlatform(id.platform))
  if (platform === undefined) return yield* new PlatformNotFound({ platform: id.platform })
  if (!platform.versions.includes(id.version)) return yield* new VersionNotFound(id)
})

export interface RevisionPage {
  readonly revisions: ReadonlyArray<RevisionSummary>
  readonly next: number | undefined
}

// Worded as `parseWholeNumber` (`@coffer/kernel`) words it, which reads these from a query string over HTTP.
const positive = (value: number | undefined, name: string, max: number) =>
  value === undefined || (Number.isSafeInteger(value) && value >= 1 && value <= max)
    ? Effect.void
    : Effect.fail(new BadRequest({ message: `${name} must be a whole number from 1 to ${max}` }))

export const listRevisions = Effect.fn("Schemas.listRevisions")(function* (
  actor: Actor,
  id: SchemaId,
  options: { readonly limit?: number | undefined; readonly before?: number | undefined },
): Effect.fn.Return<RevisionPage, BadRequest | PlatformNotFound | VersionNotFound | StoreUnavailable, SchemaStore> {
  yield* positive(options.limit, "limit", MAX_REVISION_PAGE)
  yield* positive(options.before, "before", Number.MAX_SAFE_INTEGER)
  yield* requireVersion(actor, id)
  const limit = options.limit ?? DEFAULT_REVISION_PAGE
  const revisions = yield* SchemaStore.use((store) => store.listRevisions(id, { limit, before: options.before }))
  const last = revisions.at(-1)
  return {
    revisions,
    next: revisions.length === limit && last !== undefined && last.revision > 1 ? last.revision : undefined,
  }
})

export const getRevision = Effect.fn("Schemas.getRevision")(function* (
  actor: Actor,
  id: SchemaId,
  revision: number,
): Effect.fn.Return<
  Revision,
  BadRequest | PlatformNotFound | VersionNotFound | RevisionNotFound | StoreUnavailable,
  SchemaStore
> {
  yield* positive(revision, "revision", Number.MAX_SAFE_INTEGER)
  yield* requireVersion(actor, id)
  const found = yield* SchemaStore.use((store) => store.findRevision(id, revision))
  if (found === undefined) return yield* new RevisionNotFound({ ...id, revision })
  return found
})
