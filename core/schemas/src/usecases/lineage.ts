/**
 * A schema's place in the inheritance graph, for the dashboard's Inheritance and Output tabs:
 * - `ancestorsOf`: the schema and every schema it inherits from, up to the roots, each with the parents its
 *   references select, and the source of every value of its output (`domain/provenance.ts`). Computed on the
 *   server, where resolution already loads exactly the ancestors' contents, level by level, in a few queries.
 * - `dependentsOf`: every schema that extends it, directly or through others: what a save of it re-processes.
 *   It is the cascade's own plan (`planWithLoading`: edges loaded a level at a time, no recursion), so the list
 *   is exactly what the next save will re-resolve, in the same order (dependencies first).
 *
 * Both read without the write lock, in several queries: an answer given while a save commits may reflect the graph
 * partly before and partly after it; the next read is exact. Reads never wait behind a cascade.
 */
import type { StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import type { Actor } from "../access.js"
import type { ResolveError } from "../domain/errors.js"
import { parseReference } from "../domain/extendsRef.js"
import { traceProvenance, type ValueSource } from "../domain/provenance.js"
import type { SelectedParent } from "../domain/resolve.js"
import { type SchemaId, schemaKey } from "../domain/schemaId.js"
import { selectVersion } from "../domain/select.js"
import type { PlatformNotFound, VersionNotFound } from "../errors.js"
import type { SchemaStore } from "../SchemaStore.js"
import { requireVersion } from "./history.js"
import { emptyView, ensurePlatforms, loadClosure, planWithLoading, resolverOf, type StoreView } from "./view.js"

/** One schema of the ancestor graph and what its references selected, in the order written. */
export interface AncestorNode extends SchemaId {
  readonly parents: ReadonlyArray<SelectedParent>
  /** Whether a schema was ever saved for it; a version without one merges in as `{}`. */
  readonly saved: boolean
}

export interface Ancestry {
  /** The schema itself first, then each ancestor once, nearest first (breadth first). */
  readonly ancestors: ReadonlyArray<AncestorNode>
  /** Where each value of the output came from, in the output's key order. */
  readonly provenance: ReadonlyArray<ValueSource>
}

const contentIn = (view: StoreView, id: SchemaId): Schema.JsonObject => {
  const schemas = view.platforms.get(id.platform)?.schemas
  // Resolution has validated every content it reached: each is a plain object, or absent (resolved as `{}`).
  return (schemas?.has(id.version) ? schemas.get(id.version) : {}) as Schema.JsonObject
}

export const ancestorsOf = Effect.fn("Schemas.ancestorsOf")(function* (
  actor: Actor,
  id: SchemaId,
): Effect.fn.Return<Ancestry, PlatformNotFound | VersionNotFound | ResolveError | StoreUnavailable, SchemaStore> {
  yield* requireVersion(actor, id)
  const view = emptyView()
  yield* ensurePlatforms(view, [id.platform])
  yield* loadClosure(view, [id])
  const resolver = resolverOf(view)
  const root = resolver.resolve(id)
  if (Result.isFailure(root)) return yield* Effect.fail(root.failure)
  // Every ancestor was resolved (and memoised) while resolving the root: these lookups cannot fail.
  const parentsOf = (ancestor: SchemaId): ReadonlyArray<SelectedParent> =>
    Result.getOrThrow(resolver.resolve(ancestor)).parents
  const ancestors: Array<AncestorNode> = []
  const seen = new Set([schemaKey(id)])
  const queue: Array<SchemaId> = [id]
  for (let index = 0; index < queue.length; index++) {
    const current = queue[index]!
    const parents = parentsOf(current)
    const saved = view.platforms.get(current.platform)?.schemas.has(current.version) === true
    ancestors.push({ platform: current.platform, version: current.version, parents, saved })
    for (const parent of parents) {
      const key = schemaKey(parent)
      if (seen.has(key)) continue
      seen.add(key)
      queue.push({ platform: parent.platform, version: parent.version })
    }
  }
  const provenance = traceProvenance(id, (schema) => ({
    content: contentIn(view, schema),
    parents: parentsOf(schema),
  }))
  return { ancestors, provenance }
})

/** One schema that extends the given one, with the schemas of the answer (or the given one) it extends. */
export interface Dependent extends SchemaId {
  /** `platform/version` of each schema it extends among the given one and the other dependents, sorted. */
  readonly extends: ReadonlyArray<string>
}

export const dependentsOf = Effect.fn("Schemas.dependentsOf")(function* (
  actor: Actor,
  id: SchemaId,
): Effect.fn.Return<ReadonlyArray<Dependent>, PlatformNotFound | VersionNotFound | StoreUnavailable, SchemaStore> {
  yield* requireVersion(actor, id)
  const view = emptyView()
  yield* ensurePlatforms(view, [id.platform])
  const plan = yield* planWithLoading(view, { _tag: "SchemaSaved", schema: id })
  const members = new Set([schemaKey(id), ...plan.map(schemaKey)])
  const extendsOf = new Map<string, Set<string>>(plan.map((dependent) => [schemaKey(dependent), new Set()]))
  // The planner has loaded the edges towards, and the versions of, every platform it expanded: the given
  // schema's and each dependent's. Each reference is selected once per platform.
  for (const platform of new Set([id.platform, ...plan.map((dependent) => dependent.platform)])) {
    const versions = view.platforms.get(platform)?.versions
    const selected = new Map<string, string | undefined>()
    for (const edge of view.edges.get(platform) ?? []) {
      const dependent = extendsOf.get(schemaKey(edge.dependent))
      if (dependent === undefined) continue
      if (!selected.has(edge.reference)) {
        const reference = parseReference(edge.reference)
        selected.set(
          edge.reference,
          Result.isSuccess(reference) && reference.success.platform === platform
            ? Result.getOrUndefined(selectVersion(reference.success, versions))
            : undefined,
        )
      }
      const version = selected.get(edge.reference)
      const parent = version === undefined ? undefined : `${platform}/${version}`
      if (parent !== undefined && members.has(parent)) dependent.add(parent)
    }
  }
  return plan.map((dependent) => ({
    platform: dependent.platform,
    version: dependent.version,
    extends: [...extendsOf.get(schemaKey(dependent))!].sort(),
  }))
})
