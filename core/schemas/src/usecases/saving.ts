/**
 * Saving a schema's content, shared by `saveSchema` and by a version added with its schema (`addVersion`): the
 * checks a content passes before any store call, and the save itself inside the caller's transaction.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import { checkWellFormed, validateContent } from "../domain/content.js"
import { extendsOf } from "../domain/extendsRef.js"
import { checkReferences } from "../domain/limits.js"
import { type SchemaId, schemaKey } from "../domain/schemaId.js"
import { PlatformNotFound, VersionNotFound } from "../errors.js"
import { SchemaStore } from "../SchemaStore.js"
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
  savedBy: string,
  savedAt: number,
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
    savedBy,
    savedAt,
  })
  yield* store.saveOutputs(reprocessed)
  // Last, just before the commit: until then cached reads keep being served (see schemaCache.ts).
  yield* invalidateSchemas
  const schema: SchemaView = { content, dependencies: resolution.dependencies, output: resolution.output }
  return { schema, reprocessed: reprocessed.map(schemaKey) }
})
