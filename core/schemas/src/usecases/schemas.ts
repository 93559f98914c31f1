/**
 * Reading and saving one schema (a platform version's content).
 *
 * Saving (DESIGN.md "Saving a schema"): the content must be a plain JSON object of well-formed Unicode (no unpaired
 * surrogate, `domain/content.ts`) whose `@extends` references all resolve, without a cycle at any depth; the output
 * is the merge of the selected parents and the content; the platforms merged in are recorded as the schema's
 * sources. Every schema that depends on it, transitively, is then re-resolved once, and all of it is written in one
 * transaction: every output changes or none does.
 *
 * A save may name the revision its content was edited from (`expectedRevision`, 0: nothing saved yet); it then
 * lands only on top of that revision, checked in the same transaction that writes, so that of two saves started
 * from one revision exactly one lands and the other is refused (`SchemaSavedMeanwhile`) instead of replacing a
 * change its author never saw. `readForEditing` answers the schema with the revision to name.
 */
import { BadRequest, type Cache, Clock, Forbidden, type Random, type StoreUnavailable, spanned } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import { type Actor, canSee, covers, requireWriter } from "../access.js"
import type { ResolveError } from "../domain/errors.js"
import { isValidPlatformName } from "../domain/platform.js"
import { type SchemaId, schemaKey } from "../domain/schemaId.js"
import { isValidVersion } from "../domain/version.js"
import {
  PlatformNotFound,
  type RevisionNotFound,
  SchemaNotFound,
  type SchemaSavedMeanwhile,
  VersionNotFound,
} from "../errors.js"
import { SchemaStore } from "../SchemaStore.js"
import { invalidateSchemasAfterCommit, lookupSchema, type SchemaLookup } from "../schemaCache.js"
import type { SchemaView } from "../views.js"
import { getRevision, requireVersion } from "./history.js"
import { checkContent, checkExpectedRevision, latestRevision, resolveForSave, saveWithin } from "./saving.js"
import { emptyView } from "./view.js"

/** A schema as the data endpoints show it (`../views.ts`). */
export type { SchemaView } from "../views.js"

/**
 * The sources a scoped token must cover. A schema saved before sources were recorded has none on record: when it
 * extends nothing its own platform is all it can hold; when it extends something it stays unreadable by scoped
 * tokens until its next save records them (seed 000 §2).
 */
const sourcesOf = (schema: {
  readonly platform: string
  readonly dependencies: ReadonlyArray<string>
  readonly sources: ReadonlyArray<string> | undefined
}) => schema.sources ?? (schema.dependencies.length === 0 ? [schema.platform] : undefined)

/**
 * One view object per stored schema object: the schema cache hands out the same stored object for as long as its
 * generation lasts, so the view (and the bytes a route keeps for it) lives exactly as long.
 */
const views = new WeakMap<object, SchemaView>()
const viewOf = (schema: {
  readonly content: Schema.JsonObject
  readonly dependencies: ReadonlyArray<string>
  readonly output: Schema.JsonObject
}): SchemaView => {
  let view = views.get(schema)
  if (view === undefined) {
    view = { content: schema.content, dependencies: schema.dependencies, output: schema.output }
    views.set(schema, view)
  }
  return view
}

/**
 * Its span is made only when tracing is on, as `checkToken`'s: it answers every token-checked read (issue 10). The
 * span wraps it in a plain function, as `checkToken`'s does.
 */
export const readSchema = (
  actor: Actor,
  id: SchemaId,
): Effect.Effect<
  SchemaView,
  PlatformNotFound | VersionNotFound | SchemaNotFound | Forbidden | StoreUnavailable,
  SchemaStore | Cache.Cache | Random.Random
> => tracedRead(read(actor, id))

const tracedRead = spanned("Schemas.readSchema")

type ReadError = PlatformNotFound | VersionNotFound | SchemaNotFound | Forbidden | StoreUnavailable

/**
 * A plain function of one step after the lookup rather than a generator: on the hottest read, each step of a
 * generator cost about what a whole check here costs (issue 10).
 */
const read = (
  actor: Actor,
  id: SchemaId,
): Effect.Effect<SchemaView, ReadError, SchemaStore | Cache.Cache | Random.Random> => {
  // Out of the actor's reach, or a name that cannot be created and so cannot exist: no store round trip for it.
  if (!canSee(actor, id.platform) || !isValidPlatformName(id.platform))
    return Effect.fail(new PlatformNotFound({ platform: id.platform }))
  // Nor can a version the version-string rules refuse: answered at once and never cached, so a reader looping
  // over made-up strings costs neither a round trip nor a cache entry.
  if (!isValidVersion(id.version)) return Effect.fail(new VersionNotFound(id))
  return Effect.flatMap(lookupSchema(id, actor._tag === "Token" ? actor.generation : undefined), (found) =>
    answerOf(actor, id, found),
  )
}

const answerOf = (actor: Actor, id: SchemaId, found: SchemaLookup): Effect.Effect<SchemaView, ReadError> => {
  switch (found._tag) {
    case "PlatformMissing":
      return Effect.fail(new PlatformNotFound({ platform: id.platform }))
    case "VersionMissing":
      return Effect.fail(new VersionNotFound(id))
    case "SchemaMissing":
      return Effect.fail(new SchemaNotFound(id))
    case "Found": {
      const { schema } = found
      if (!covers(actor, sourcesOf(schema))) {
        return Effect.fail(
          new Forbidden({ message: `This API token does not cover every platform merged into ${schemaKey(id)}` }),
        )
      }
      return Effect.succeed(viewOf(schema))
    }
  }
}

export interface SaveResult {
  readonly schema: SchemaView
  /** The number of the revision this save stored. */
  readonly revision: number
  /** `platform/version` of every dependent re-resolved, dependencies first. */
  readonly reprocessed: ReadonlyArray<string>
}

export interface SaveOptions {
  /**
   * The check-and-set: the revision the content was edited from (0: nothing was saved yet). The save lands only
   * when the schema is still at that revision, otherwise `SchemaSavedMeanwhile` and nothing is written. Left out,
   * the save lands whatever the revision.
   */
  readonly expectedRevision?: number | undefined
}

/**
 * `expectedRevision` of a save: absent, or a whole number from 0 up to the largest integer a JSON number carries
 * exactly. The HTTP body's Schema says the same; this is for callers that come another way.
 */
const parseExpectedRevision = (value: number | undefined): Effect.Effect<number | undefined, BadRequest> =>
  value === undefined || (Number.isSafeInteger(value) && value >= 0)
    ? Effect.succeed(value)
    : Effect.fail(
        new BadRequest({ message: `expectedRevision must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}` }),
      )

type SaveError =
  | BadRequest
  | PlatformNotFound
  | VersionNotFound
  | Forbidden
  | ResolveError
  | SchemaSavedMeanwhile
  | StoreUnavailable

type SaveServices = SchemaStore | Cache.Cache | Random.Random | Clock.Clock

/** A save, or a restore when `restoredFrom` names the revision whose content `content` is. */
const save = Effect.fnUntraced(function* (
  actor: Actor,
  id: SchemaId,
  content: unknown,
  options: SaveOptions,
  restoredFrom: number | undefined,
): Effect.fn.Return<SaveResult, SaveError, SaveServices> {
  const person = yield* requireWriter(actor, id.platform)
  const checked = yield* checkContent(content)
  const expectedRevision = yield* parseExpectedRevision(options.expectedRevision)
  const store = yield* SchemaStore
  const savedAt = yield* Clock.Clock.use((clock) => clock.now)
  // Resolved once outside the write lock: a save that cannot resolve (a cycle, a missing reference, too deep, too
  // large) is refused without holding up other writers. The transaction resolves again against what it reads.
  // The expected revision is compared only inside it: read before, another save could still land in between.
  yield* resolveForSave(emptyView(), id, checked)
  const result = yield* store.transaction(
    Effect.gen(function* () {
      const revision = yield* checkExpectedRevision(id, expectedRevision)
      const saved = yield* saveWithin(id, checked, { savedBy: person.email, savedAt, restoredFrom })
      return { ...saved, revision }
    }),
  )
  yield* invalidateSchemasAfterCommit
  return result
})

export const saveSchema = Effect.fn("Schemas.saveSchema")(function* (
  actor: Actor,
  id: SchemaId,
  content: unknown,
  options: SaveOptions = {},
): Effect.fn.Return<SaveResult, SaveError, SaveServices> {
  return yield* save(actor, id, content, options, undefined)
})

/**
 * Saves an earlier revision's content again, as the schema's next revision, which records the one it brought back
 * (SchemaStore rule 11). Everything else is a save's: the writer's rights, `expectedRevision`, and the resolution
 * against the bases as they are now, so an old content whose references no longer resolve is refused as its save
 * would be, and nothing changes. The revision is read before the save's transaction: a revision never changes.
 */
export const restoreRevision = Effect.fn("Schemas.restoreRevision")(function* (
  actor: Actor,
  id: SchemaId,
  revision: number,
  options: SaveOptions = {},
): Effect.fn.Return<SaveResult, SaveError | RevisionNotFound, SaveServices> {
  yield* requireWriter(actor, id.platform)
  const found = yield* getRevision(actor, id, revision)
  return yield* save(actor, id, found.content, options, found.revision)
})

/** A schema as an editor starts from it: what the data endpoints show, and the revision that is. */
export interface EditableSchema {
  readonly schema: SchemaView
  /** The number of its latest revision: what a save of content edited from it names as `expectedRevision`. */
  readonly revision: number
}

/**
 * The schema and its revision read together, for the dashboard's editor (session only: a token cannot save). Read
 * in a writing transaction, which no save interleaves with (SchemaStore rule 7), so that the content and the
 * number belong to the same save; never from the cache, which may be a save behind on another instance. A person
 * starts editing now and then, so the lock costs little.
 */
export const readForEditing = Effect.fn("Schemas.readForEditing")(function* (
  actor: Actor,
  id: SchemaId,
): Effect.fn.Return<
  EditableSchema,
  PlatformNotFound | VersionNotFound | SchemaNotFound | StoreUnavailable,
  SchemaStore
> {
  yield* requireVersion(actor, id)
  const store = yield* SchemaStore
  const read = yield* store.transaction(Effect.all({ schema: store.findSchema(id), revision: latestRevision(id) }))
  if (read.schema === undefined) return yield* new SchemaNotFound(id)
  return { schema: viewOf(read.schema), revision: read.revision }
})
