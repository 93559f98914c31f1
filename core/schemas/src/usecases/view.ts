/**
 * The in-memory view one write operation builds of the store: the platforms it has read (versions and saved
 * contents, or "absent") and the dependency edges by referenced platform. Resolution and cascade planning are
 * pure and synchronous over such a view; the functions here fill it in batches, one level of the dependency
 * graph per round, so a cascade over N dependents N levels deep costs a few queries per level and never one
 * query per edge (SchemaStore rule 3).
 *
 * The view is only ever used inside the writing transaction that built it, so nothing can change under it.
 */
import type { StoreUnavailable } from "@coffer/kernel"
import { Effect, Result, type Schema } from "effect"
import { type CascadeTrigger, type DependencyEdge, planCascade } from "../domain/cascade.js"
import type { ResolveError } from "../domain/errors.js"
import { pendingPlatforms, type Resolution, resolveSchema, type SchemaToResolve } from "../domain/resolve.js"
import type { SchemaId } from "../domain/schemaId.js"
import { compareVersions } from "../domain/version.js"
import type { PlatformKind } from "../platform.js"
import { SchemaStore } from "../SchemaStore.js"

/** One platform as the view holds it; its contents can be replaced by the operation (the schema being saved). */
export interface ViewPlatform {
  readonly kind: PlatformKind | undefined
  versions: ReadonlyArray<string>
  readonly schemas: Map<string, unknown>
}

export interface StoreView {
  /** `undefined` records a platform known to be absent. */
  readonly platforms: Map<string, ViewPlatform | undefined>
  readonly edges: Map<string, ReadonlyArray<DependencyEdge>>
}

export const emptyView = (): StoreView => ({ platforms: new Map(), edges: new Map() })

/** Loads the named platforms the view does not know yet, in one store call. */
export const ensurePlatforms = Effect.fnUntraced(function* (
  view: StoreView,
  names: Iterable<string>,
): Effect.fn.Return<void, StoreUnavailable, SchemaStore> {
  const missing = [...new Set(names)].filter((name) => !view.platforms.has(name))
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
  for (const edge of edges) view.edges.set(edge.platform, [...(view.edges.get(edge.platform) ?? []), edge])
})

/** Adds a version to a platform of the view, keeping the order the store keeps. */
export const withVersions = (platform: ViewPlatform, versions: ReadonlyArray<string>): void => {
  platform.versions = [...new Set([...platform.versions, ...versions])].sort(compareVersions)
}

/**
 * Resolves several schemas against the view, loading what resolution needs first: each round asks every
 * schema which platforms it still lacks (`pendingPlatforms`) and loads them all at once, so the number of
 * rounds is the depth of the deepest chain. Fails with the first schema's error, in the order given.
 */
export const resolveAll = Effect.fnUntraced(function* (
  view: StoreView,
  schemas: ReadonlyArray<SchemaToResolve>,
): Effect.fn.Return<ReadonlyArray<Resolution>, StoreUnavailable | ResolveError, SchemaStore> {
  for (;;) {
    const pending = new Set(schemas.flatMap((schema) => pendingPlatforms(schema, view.platforms)))
    if (pending.size === 0) break
    yield* ensurePlatforms(view, pending)
  }
  const lookup = (platform: string) => view.platforms.get(platform)
  const resolutions: Array<Resolution> = []
  for (const schema of schemas) {
    const resolved = resolveSchema(schema, lookup)
    if (Result.isFailure(resolved)) return yield* Effect.fail(resolved.failure)
    resolutions.push(resolved.success)
  }
  return resolutions
})

/**
 * The cascade plan for `trigger` against the view, loading edges and platforms level by level: the pure planner
 * runs over what is known, reports (through the lookups it makes) what it lacked, and runs again once that is
 * loaded. Each round reaches one level deeper, so the rounds follow the depth of the dependents, not their number.
 */
export const planWithLoading = Effect.fnUntraced(function* (
  view: StoreView,
  trigger: CascadeTrigger,
): Effect.fn.Return<ReadonlyArray<SchemaId>, StoreUnavailable, SchemaStore> {
  for (;;) {
    const lackingEdges = new Set<string>()
    const lackingPlatforms = new Set<string>()
    const plan = planCascade(trigger, {
      dependentsOf: (platform) => {
        const edges = view.edges.get(platform)
        if (edges === undefined) lackingEdges.add(platform)
        return edges ?? []
      },
      versionsOf: (platform) => {
        if (!view.platforms.has(platform)) lackingPlatforms.add(platform)
        return view.platforms.get(platform)?.versions
      },
    })
    if (lackingEdges.size === 0 && lackingPlatforms.size === 0) return plan
    yield* ensureEdges(view, lackingEdges)
    yield* ensurePlatforms(view, lackingPlatforms)
  }
})

/** One re-resolved dependent: what the cascade writes. */
export interface Reprocessed extends SchemaId {
  readonly output: Schema.JsonObject
  readonly sources: ReadonlyArray<string>
}

/**
 * Re-resolves every schema `trigger` affects, each once, against the view (which already holds the change).
 * All succeed or the first failure is returned: the caller's transaction then writes nothing.
 */
export const cascade = Effect.fnUntraced(function* (
  view: StoreView,
  trigger: CascadeTrigger,
): Effect.fn.Return<ReadonlyArray<Reprocessed>, StoreUnavailable | ResolveError, SchemaStore> {
  const plan = yield* planWithLoading(view, trigger)
  // Planned schemas hold edges, so each has saved content; its platform was loaded while planning.
  const targets = plan.map((id) => ({ ...id, content: view.platforms.get(id.platform)?.schemas.get(id.version) }))
  const resolutions = yield* resolveAll(view, targets)
  return targets.map(({ platform, version }, index) => ({
    platform,
    version,
    output: resolutions[index]!.output,
    sources: resolutions[index]!.sources,
  }))
})
