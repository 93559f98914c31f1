/**
 * Cascade planning: after a schema is saved, or a platform's version list changes, which schemas must be
 * re-resolved, and in what order (DESIGN.md "Cascade").
 *
 * Dependencies are stored as edges at platform level: a dependent schema, the platform it references and the
 * reference as written. A dependent reaches its parent through a spec (`^1.2.0`, `latest`…), so an edge alone
 * does not name a version; the plan selects it against the platform's versions, exactly as resolution would.
 * Indexing edges by referenced platform lets a store answer "which schemas reference platform P" in one query.
 *
 * The plan lists each affected schema once (a visited set) and puts every schema after the affected schemas it
 * depends on. It terminates on any stored data, cycles included; within a cycle the order is still deterministic.
 * The planner loads as it goes (`makeCascadePlanner`): a use case answers what it lacks, a level at a time.
 */
import * as Result from "effect/Result"
import { type ExtendsRef, parseReference } from "./extendsRef.js"
import { type SchemaId, schemaKey } from "./schemaId.js"
import { selectVersion } from "./select.js"
import { compareParsed, type ParsedVersion, parseVersion } from "./version.js"

/** One `@extends` reference held by a saved schema. */
export interface DependencyEdge {
  /** The schema whose content holds the reference. */
  readonly dependent: SchemaId
  /** The referenced platform: the column to index. */
  readonly platform: string
  /** The reference as written, e.g. `ios/^1.2.0`. */
  readonly reference: string
}

/** The edges to store for a schema saved with these `dependencies`; references that do not parse are left out. */
export const dependencyEdges = (
  dependent: SchemaId,
  dependencies: ReadonlyArray<string>,
): ReadonlyArray<DependencyEdge> =>
  dependencies.flatMap((reference) => {
    const parsed = parseReference(reference)
    return Result.isSuccess(parsed) ? [{ dependent, platform: parsed.success.platform, reference }] : []
  })

/** What happened: a schema's content was saved, or a platform's version list changed (a version added). */
export type CascadeTrigger =
  | { readonly _tag: "SchemaSaved"; readonly schema: SchemaId }
  | {
      readonly _tag: "VersionsChanged"
      readonly platform: string
      readonly before: ReadonlyArray<string>
      readonly after: ReadonlyArray<string>
    }

/** The store's view the plan reads, after the change. */
export interface CascadeGraph {
  /** Every edge whose referenced platform is `platform`. */
  readonly dependentsOf: (platform: string) => ReadonlyArray<DependencyEdge>
  /** The platform's versions now; `undefined` when it does not exist. */
  readonly versionsOf: (platform: string) => ReadonlyArray<string> | undefined
}

/**
 * True when `reference` selects something different once its platform's versions go from `before` to `after`:
 * another version, or a selection appearing or disappearing. `undefined` stands for a missing platform.
 */
export const wouldChangeSelection = (
  reference: ExtendsRef,
  before: ReadonlyArray<string> | undefined,
  after: ReadonlyArray<string> | undefined,
): boolean => selectedVersion(reference, before) !== selectedVersion(reference, after)

const selectedVersion = (reference: ExtendsRef, versions: ReadonlyArray<string> | undefined): string | undefined =>
  Result.getOrUndefined(selectVersion(reference, versions))

/**
 * What a planner that loads as it goes can be told: `undefined` means "not loaded yet", so the planner can report
 * what it lacks and carry on once the caller has loaded it.
 */
export interface CascadeSource {
  /** Every edge whose referenced platform is `platform`; `undefined` while not loaded. */
  readonly edgesTo: (platform: string) => ReadonlyArray<DependencyEdge> | undefined
  /** The platform's versions (`versions: undefined`: it does not exist); `undefined` while not loaded. */
  readonly platform: (platform: string) => { readonly versions: ReadonlyArray<string> | undefined } | undefined
}

/** What one step of the planner lacked: load these, then call `advance` again. */
export interface Lacking {
  readonly edges: ReadonlyArray<string>
  readonly platforms: ReadonlyArray<string>
}

export interface CascadePlanner {
  /** Reaches every dependent the loaded data allows; returns what it lacked (both empty: the plan is complete). */
  readonly advance: () => Lacking
  /** The plan, dependencies first; call once `advance` lacks nothing. */
  readonly order: () => ReadonlyArray<SchemaId>
}

/**
 * A planner for `trigger` that works level by level: each `advance` expands every schema whose platform's edges
 * and versions are loaded, and reports the rest. The work is linear in the edges met: each reference is parsed
 * and selected once per cascade, and each platform's edges are grouped by the version they select once, so
 * expanding a schema is a map lookup. No recursion: a queue for the walk, an explicit stack for the order.
 */
export const makeCascadePlanner = (trigger: CascadeTrigger, source: CascadeSource): CascadePlanner => {
  const saved = trigger._tag === "SchemaSaved" ? schemaKey(trigger.schema) : undefined
  const affected = new Map<string, SchemaId>()
  // For each affected schema, the affected schemas it depends on: the edges the order must respect.
  const dependsOn = new Map<string, Set<string>>()
  /** Schemas to expand; `from` is the affected schema they are (`undefined` for the saved one). */
  let queue: Array<{ readonly id: SchemaId; readonly from: string | undefined }> = []
  let started = false

  const parsed = new Map<string, ExtendsRef | undefined>()
  const referenceOf = (raw: string): ExtendsRef | undefined => {
    if (!parsed.has(raw)) parsed.set(raw, Result.getOrUndefined(parseReference(raw)))
    return parsed.get(raw)
  }
  // A platform's edges by the version each selects, built once per platform.
  const byVersion = new Map<string, ReadonlyMap<string, ReadonlyArray<DependencyEdge>>>()

  const reach = (edge: DependencyEdge, from: string | undefined): void => {
    const key = schemaKey(edge.dependent)
    if (key === saved) return
    if (!affected.has(key)) {
      affected.set(key, edge.dependent)
      dependsOn.set(key, new Set())
      queue.push({ id: edge.dependent, from: key })
    }
    if (from !== undefined) dependsOn.get(key)!.add(from)
  }

  const indexOf = (
    platform: string,
    lackEdges: Set<string>,
    lackPlatforms: Set<string>,
  ): ReadonlyMap<string, ReadonlyArray<DependencyEdge>> | undefined => {
    const known = byVersion.get(platform)
    if (known !== undefined) return known
    const edges = source.edgesTo(platform)
    const info = source.platform(platform)
    if (edges === undefined) lackEdges.add(platform)
    if (info === undefined) lackPlatforms.add(platform)
    if (edges === undefined || info === undefined) return undefined
    const index = new Map<string, Array<DependencyEdge>>()
    const selections = new Map<string, string | undefined>()
    for (const edge of edges) {
      const reference = referenceOf(edge.reference)
      if (reference === undefined || reference.platform !== platform) continue
      if (!selections.has(edge.reference)) selections.set(edge.reference, selectedVersion(reference, info.versions))
      const version = selections.get(edge.reference)
      if (version === undefined) continue
      const list = index.get(version)
      if (list === undefined) index.set(version, [edge])
      else list.push(edge)
    }
    byVersion.set(platform, index)
    return index
  }

  const advance = (): Lacking => {
    const lackEdges = new Set<string>()
    const lackPlatforms = new Set<string>()
    if (!started) {
      if (trigger._tag === "SchemaSaved") {
        queue.push({ id: trigger.schema, from: undefined })
        started = true
      } else {
        const edges = source.edgesTo(trigger.platform)
        if (edges === undefined) return { edges: [trigger.platform], platforms: [] }
        for (const edge of edges) {
          const reference = referenceOf(edge.reference)
          if (reference === undefined || reference.platform !== trigger.platform) continue
          if (wouldChangeSelection(reference, trigger.before, trigger.after)) reach(edge, undefined)
        }
        started = true
      }
    }
    const waiting: typeof queue = []
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      const index = indexOf(next.id.platform, lackEdges, lackPlatforms)
      if (index === undefined) {
        waiting.push(next)
        continue
      }
      for (const edge of index.get(next.id.version) ?? []) reach(edge, next.from)
    }
    queue = waiting
    return { edges: [...lackEdges].sort(), platforms: [...lackPlatforms].sort() }
  }

  const order = (): ReadonlyArray<SchemaId> => {
    const versions = new Map<string, ParsedVersion>()
    const parsedVersion = (version: string) => {
      let found = versions.get(version)
      if (found === undefined) {
        found = parseVersion(version)
        versions.set(version, found)
      }
      return found
    }
    const sortedKeys = (keys: Iterable<string>): ReadonlyArray<string> =>
      [...keys].sort((a, b) => {
        const left = affected.get(a)!
        const right = affected.get(b)!
        if (left.platform !== right.platform) return left.platform < right.platform ? -1 : 1
        return compareParsed(parsedVersion(left.version), parsedVersion(right.version))
      })
    // Depth-first, dependencies before dependents; marking on entry is what stops at a cycle. An explicit stack
    // of (schema, its sorted dependencies, the next one to place) stands for the recursion.
    const ordered: Array<SchemaId> = []
    const entered = new Set<string>()
    const stack: Array<{ readonly key: string; readonly dependencies: ReadonlyArray<string>; next: number }> = []
    const enter = (key: string) => {
      entered.add(key)
      stack.push({ key, dependencies: sortedKeys(dependsOn.get(key)!), next: 0 })
    }
    for (const key of sortedKeys(affected.keys())) {
      if (entered.has(key)) continue
      enter(key)
      while (stack.length > 0) {
        const top = stack[stack.length - 1]!
        const dependency = top.dependencies[top.next]
        if (dependency === undefined) {
          stack.pop()
          ordered.push(affected.get(top.key)!)
        } else {
          top.next += 1
          if (!entered.has(dependency)) enter(dependency)
        }
      }
    }
    return ordered
  }

  return { advance, order }
}

/**
 * The schemas to re-resolve after `trigger`, dependencies first, over a graph that knows everything. A saved
 * schema is never in its own plan, even when stored data makes it its own transitive dependent.
 */
export const planCascade = (trigger: CascadeTrigger, graph: CascadeGraph): ReadonlyArray<SchemaId> => {
  const planner = makeCascadePlanner(trigger, {
    edgesTo: graph.dependentsOf,
    platform: (platform) => ({ versions: graph.versionsOf(platform) }),
  })
  planner.advance()
  return planner.order()
}
