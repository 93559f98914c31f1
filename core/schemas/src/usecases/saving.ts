/**
 * Saving a schema's content, shared by `saveSchema` and by a version added with its schema (`addVersion`): the
 * checks a content passes before any store call, the check-and-set of a save that names the revision it started
 * from, and the save itself inside the caller's transaction.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import { checkWellFormed, validateContent } from "../domain/content.js"
import { extendsOf } from "../domain/extendsRef.js"
import { checkReferences } from "../domain/limits.js"
import { type SchemaId, schemaKey } from "../domain/schemaId.js"
import { PlatformNotFound, SchemaSavedMeanwhile, VersionNotFound } from "../errors.js"
import { SchemaStore, type SchemaWrite } from "../SchemaStore.js"
import { invalidateSchemas } from "../schemaCache.js"
import type { SchemaView } from "../views.js"
import { cascade, emptyView, ensurePlatforms, loadClosure, resolverOf, type StoreView } from "./view.js"

/**
 * A content as it may be saved: a plain JSON object of well-formed Unicode whose `@extends` stays within the
 * bounds that need nothing but the request, checked before any store call and before the write lock.
 */
export const checkContent = Effect.fnUntraced(function* (content: unknown) {
  const checked = validateContent(content)
  if (Result.isFailure(checked)) return yield* Effect.fail(checked.failure)
  const wellFormed = checkWellFormed(checked.success)
  if (Result.isFailure(wellFormed)) return yield* Effect.fail(wellFormed.failure)
  const references = extendsOf(checked.success)
  if (Result.isSuccess(references)) {
    const bounded = checkReferences(references.success)
    if (Result.isFailure(bounded)) return yield* Effect.fail(bounded.failure)
  }
  return checked.success
})

/**
 * The number of the schema's latest revision, 0 when nothing is saved: revisions are numbered from 1 without gaps
 * and every save appends one (SchemaStore rules 4 and 11), so it is also what the next save will be, minus one.
 */
export const latestRevision = (id: SchemaId) =>
  SchemaStore.use((store) => store.listRevisions(id, { limit: 1 })).pipe(
    Effect.map((revisions) => revisions[0]?.revision ?? 0),
  )

/**
 * Inside the writing transaction, before `saveWithin`, so that no other save can land between this read and the
 * write (rule 7: writing transactions do not interleave): of two saves expecting the same revision, the second finds
 * the first's. Before the cascade, too, the costly part, which a refused save does not need. Answers the revision
 * the save will be stored as.
 */
export const checkExpectedRevision = Effect.fnUntraced(function* (id: SchemaId, expectedRevision: number | undefined) {
  const revision = yield* latestRevision(id)
  if (expectedRevision !== undefined && expectedRevision !== revision)
    return yield* new SchemaSavedMeanwhile({ ...id, expectedRevision, revision })
  return revision + 1
})

/**
 * Puts `content` in the view in place of the stored one, loads what it extends and resolves it; returns the
 * resolver, whose memo then serves the cascade (dependents resolve against the new content, never the stored one,
 * and each ancestor is merged once for the whole operation).
 */
export const resolveForSave = Effect.fnUntraced(function* (view: StoreView, id: SchemaId, content: Schema.JsonObject) {
  yield* ensurePlatforms(view, [id.platform])
  const platform = view.platforms.get(id.platform)
  if (platform === undefined) return yield* new PlatformNotFound({ platform: id.platform })
  if (!platform.versions.includes(id.version)) return yield* new VersionNotFound(id)
  platform.schemas.set(id.version, content)
  yield* loadClosure(view, [id])
  const resolver = resolverOf(view)
  const resolved = resolver.resolve(id)
  if (Result.isFailure(resolved)) return yield* Effect.fail(resolved.failure)
  return { resolver, resolution: resolved.success }
})

/**
 * The save inside a transaction: `content` resolved against what the transaction reads, stored as the schema's
 * next revision, and every dependent re-resolved against it.
 */
export const saveWithin = Effect.fnUntraced(function* (
  id: SchemaId,
  content: Schema.JsonObject,
  revision: Pick<SchemaWrite, "savedBy" | "savedAt" | "restoredFrom">,
) {
  const store = yield* SchemaStore
  const view = emptyView()
  const { resolver, resolution } = yield* resolveForSave(view, id, content)
  const reprocessed = yield* cascade(view, { _tag: "SchemaSaved", schema: id }, resolver)
  yield* store.saveSchema({
    ...id,
    content,
    dependencies: resolution.dependencies,
    output: resolution.output,
    sources: resolution.sources,
    ...revision,
  })
  yield* store.saveOutputs(reprocessed)
  // Last, just before the commit: until then cached reads keep being served (see schemaCache.ts).
  yield* invalidateSchemas
  const schema: SchemaView = { content, dependencies: resolution.dependencies, output: resolution.output }
  return { schema, reprocessed: reprocessed.map(schemaKey) }
})
