/**
 * The in-memory view one write operation builds of the store: the platforms it has read (versions and saved
 * contents, or "absent") and the dependency edges by referenced platform. Resolution and cascade planning are
 * pure and synchronous over such a view; the functions here fill it in batches, one level of the dependency
 * graph per round, so a cascade over N dependents N levels deep costs a few queries per level and never one
 * query per edge (SchemaStore rule 3).
 *
 * The cascade is linear in what it touches: the planner expands each schema once, the closure loader walks each
 * schema once, and one resolver (one memo) serves the saved schema and every dependent, so each ancestor is
 * merged once per operation. Between batches it yields to the event loop, so that a long cascade never holds up
 * the other requests of the process (both services share it).
 *
 * The view is only ever used inside the writing transaction that built it, so nothing can change under it.
 */
import type { StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import { measureCascade } from "../cascadeMetrics.js"
import { type CascadeTrigger, type DependencyEdge, makeCascadePlanner } from "../domain/cascade.js"
import { validateContent } from "../domain/content.js"
import type { ResolveError } from "../domain/errors.js"
import { extendsOf, parseReference } from "../domain/extendsRef.js"
import { isValidPlatformName, type PlatformKind } from "../domain/platform.js"
import { makeResolver, type Resolver } from "../domain/resolve.js"
import { type SchemaId, schemaKey } from "../domain/schemaId.js"
import { selectVersion } from "../domain/select.js"
import { sortVersions } from "../domain/version.js"
import { SchemaStore } from "../SchemaStore.js"

/** Resolutions between two yields to the event loop: a few milliseconds of work for ordinary schemas. */
const RESOLUTIONS_PER_BATCH = 200
/** Schemas the closure loader walks between two yields. */
const WALKED_PER_BATCH = 1_000

/** One platform as the view holds it; its contents can be replaced by the operation (the schema being saved). */
export interface ViewPlatform {
  readonly kind: PlatformKind | undefined
  versions: ReadonlyArray<string>
  readonly schemas: Map<string, unknown>
}

export interface StoreView {
  /** `undefined` records a platform known to be absent. */
  readonly platforms: Map<string, ViewPlatform | undefined>
  readonly edges: Map<string, Array<DependencyEdge>>
}

export const emptyView = (): StoreView => ({ platforms: new Map(), edges: new Map() })

/**
 * Loads the named platforms the view does not know yet, in one store call. A name the platform rules refuse (an
 * `@extends` reference may name anything) cannot belong to a stored platform and is recorded absent without
 * asking: a store may refuse to look one up at all (Postgres text cannot hold a NUL).
 */
export const ensurePlatforms = Effect.fnUntraced(function* (
  view: StoreView,
  names: Iterable<string>,
): Effect.fn.Return<void, StoreUnavailable, SchemaStore> {
  const missing: Array<string> = []
  for (const name of new Set(names)) {
    if (view.platforms.has(name)) continue
    if (isValidPlatformName(name)) missing.push(name)
    else view.platforms.set(name, undefined)
  }
  if (missing.length === 0) return
  const loaded = yield* SchemaStore.use((store) => store.loadPlatforms(missing))
  for (const name of missing) {
    const platform = loaded.get(name)
    view.platforms.set(
      name,
      platform === undefined
        ? undefined
        : { kind: platform.kind, versions: platform.versions, schemas: new Map(platform.schemas) },
    )
  }
})

/** Loads the edges towards the named platforms the view does not know yet, in one store call. */
const ensureEdges = Effect.fnUntraced(function* (
  view: StoreView,
  platforms: Iterable<string>,
): Effect.fn.Return<void, StoreUnavailable, SchemaStore> {
  const missing = [...new Set(platforms)].filter((platform) => !view.edges.has(platform))
  if (missing.length === 0) return
  const edges = yield* SchemaStore.use((store) => store.dependentsOf(missing))
  for (const platform of missing) view.edges.set(platform, [])
  for (const edge of edges) view.edges.get(edge.platform)?.push(edge)
})

/** Adds versions to a platform of the view, keeping the order the store keeps. */
export const withVersions = (platform: ViewPlatform, versions: ReadonlyArray<string>): void => {
  platform.versions = sortVersions(new Set([...platform.versions, ...versions]))
}

/**
 * Loads every platform resolving `roots` will look up. A walk over the selected references, each schema once;
 * a schema whose references name platforms not loaded yet waits for the next round, when all of them are loaded
 * at once. So the rounds follow the depth of the closure and the work its size. Malformed content and references
 * that select nothing are skipped here: resolution reports them.
 */
export const loadClosure = Effect.fnUntraced(function* (
  view: StoreView,
  roots: ReadonlyArray<SchemaId>,
): Effect.fn.Return<void, StoreUnavailable, SchemaStore> {
  const seen = new Set(roots.map(schemaKey))
  let frontier: Array<SchemaId> = [...roots]
  // Loaded platforms keep their versions for the whole walk: each reference is parsed and selected once.
  const selections = new Map<string, SchemaId | undefined>()
  const parentOf = (raw: string): SchemaId | "unloaded" | undefined => {
    const known = selections.get(raw)
    if (known !== undefined || selections.has(raw)) return known
    const reference = parseReference(raw)
    if (Result.isFailure(reference)) return undefined
    const { platform: name } = reference.success
    if (!view.platforms.has(name)) return "unloaded"
    const selected = selectVersion(reference.success, view.platforms.get(name)?.versions)
    const parent = Result.isSuccess(selected) ? { platform: name, version: selected.success } : undefined
    selections.set(raw, parent)
    return parent
  }
  let walked = 0
  while (frontier.length > 0) {
    const missing = new Set<string>()
    const waiting: Array<SchemaId> = []
    for (let id = frontier.pop(); id !== undefined; id = frontier.pop()) {
      if (++walked % WALKED_PER_BATCH === 0) yield* Effect.yieldNow
      if (!view.platforms.has(id.platform)) {
        missing.add(id.platform)
        waiting.push(id)
        continue
      }
      const platform = view.platforms.get(id.platform)
      const content = validateContent(platform?.schemas.has(id.version) ? platform.schemas.get(id.version) : {})
      if (Result.isFailure(content)) continue
      const references = extendsOf(content.success)
      if (Result.isFailure(references)) continue
      let blocked = false
      for (const raw of references.success) {
        const parent = parentOf(raw)
        if (parent === "unloaded") {
          missing.add(raw.split("/")[0]!)
          blocked = true
          continue
        }
        if (parent === undefined) continue
        const key = schemaKey(parent)
        if (seen.has(key)) continue
        seen.add(key)
        frontier.push(parent)
      }
      if (blocked) waiting.push(id)
    }
    if (missing.size === 0) return
    yield* ensurePlatforms(view, missing)
    frontier = waiting
  }
})

/** A resolver over the view as it is now: build it after the operation has put its changes in the view. */
export const resolverOf = (view: StoreView): Resolver => makeResolver((platform) => view.platforms.get(platform))

/**
 * The cascade plan for `trigger` against the view, loading edges and platforms level by level: the planner
 * expands what is loaded, reports what it lacked, and carries on once that is loaded (with a yield to the event
 * loop in between). The rounds follow the depth of the dependents, not their number.
 */
export const planWithLoading = Effect.fnUntraced(function* (
  view: StoreView,
  trigger: CascadeTrigger,
): Effect.fn.Return<ReadonlyArray<SchemaId>, StoreUnavailable, SchemaStore> {
  const planner = makeCascadePlanner(trigger, {
    edgesTo: (platform) => view.edges.get(platform),
    platform: (platform) => {
      if (!view.platforms.has(platform)) return undefined
      return { versions: view.platforms.get(platform)?.versions }
    },
  })
  for (;;) {
    const lacking = planner.advance()
    if (lacking.edges.length === 0 && lacking.platforms.length === 0) return planner.order()
    yield* ensureEdges(view, lacking.edges)
    yield* ensurePlatforms(view, lacking.platforms)
    yield* Effect.yieldNow
  }
})

/** One re-resolved dependent: what the cascade writes. */
export interface Reprocessed extends SchemaId {
  readonly output: Schema.JsonObject
  readonly sources: ReadonlyArray<string>
}

/**
 * Re-resolves every schema `trigger` affects, each once, against the view (which already holds the change), with
 * `resolver` (the one that resolved the saved schema, when there is one: its memo carries over). All succeed or
 * the first failure is returned: the caller's transaction then writes nothing.
 */
export const cascade = Effect.fnUntraced(function* (
  view: StoreView,
  trigger: CascadeTrigger,
  resolver?: Resolver,
): Effect.fn.Return<ReadonlyArray<Reprocessed>, StoreUnavailable | ResolveError, SchemaStore> {
  const plan = yield* planWithLoading(view, trigger)
  yield* loadClosure(view, plan)
  const resolve = resolver ?? resolverOf(view)
  const reprocessed: Array<Reprocessed> = []
  for (const [index, id] of plan.entries()) {
    if (index > 0 && index % RESOLUTIONS_PER_BATCH === 0) yield* Effect.yieldNow
    const resolved = resolve.resolve(id)
    if (Result.isFailure(resolved)) return yield* Effect.fail(resolved.failure)
    reprocessed.push({ ...id, output: resolved.success.output, sources: resolved.success.sources })
  }
  return reprocessed
}, measureCascade)
