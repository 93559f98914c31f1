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
 */
import { Result } from "effect"
import { type ExtendsRef, parseReference } from "./extendsRef.js"
import { type SchemaId, schemaKey } from "./schemaId.js"
import { selectVersion } from "./select.js"
import { compareVersions } from "./version.js"

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
 * The schemas to re-resolve after `trigger`, dependencies first. A saved schema is never in its own plan, even
 * when stored data makes it its own transitive dependent.
 */
export const planCascade = (trigger: CascadeTrigger, graph: CascadeGraph): ReadonlyArray<SchemaId> => {
  const saved = trigger._tag === "SchemaSaved" ? schemaKey(trigger.schema) : undefined
  const affected = new Map<string, SchemaId>()
  // For each affected schema, the affected schemas it depends on: the edges the order must respect.
  const dependsOn = new Map<string, Set<string>>()
  const toExpand: Array<SchemaId> = []

  const reach = (edge: DependencyEdge, from: string | undefined): void => {
    const key = schemaKey(edge.dependent)
    if (key === saved) return
    if (!affected.has(key)) {
      affected.set(key, edge.dependent)
      dependsOn.set(key, new Set())
      toExpand.push(edge.dependent)
    }
    if (from !== undefined) dependsOn.get(key)!.add(from)
  }

  const edgesTo = (platform: string, selects: (reference: ExtendsRef) => boolean): ReadonlyArray<DependencyEdge> =>
    graph.dependentsOf(platform).filter((edge) => {
      const parsed = parseReference(edge.reference)
      return Result.isSuccess(parsed) && parsed.success.platform === platform && selects(parsed.success)
    })

  const dependentsOfSchema = (id: SchemaId): ReadonlyArray<DependencyEdge> => {
    const versions = graph.versionsOf(id.platform)
    return edgesTo(id.platform, (reference) => selectedVersion(reference, versions) === id.version)
  }

  if (trigger._tag === "SchemaSaved") {
    for (const edge of dependentsOfSchema(trigger.schema)) reach(edge, undefined)
  } else {
    const changed = (reference: ExtendsRef) => wouldChangeSelection(reference, trigger.before, trigger.after)
    for (const edge of edgesTo(trigger.platform, changed)) reach(edge, undefined)
  }
  for (let next = toExpand.pop(); next !== undefined; next = toExpand.pop()) {
    const from = schemaKey(next)
    for (const edge of dependentsOfSchema(next)) reach(edge, from)
  }

  // Depth-first, dependencies before dependents; marking on entry is what stops at a cycle.
  const ordered: Array<SchemaId> = []
  const entered = new Set<string>()
  const place = (key: string): void => {
    if (entered.has(key)) return
    entered.add(key)
    for (const dependency of sortedKeys(dependsOn.get(key)!, affected)) place(dependency)
    ordered.push(affected.get(key)!)
  }
  for (const key of sortedKeys(affected.keys(), affected)) place(key)
  return ordered
}

const sortedKeys = (keys: Iterable<string>, ids: ReadonlyMap<string, SchemaId>): ReadonlyArray<string> =>
  [...keys].sort((a, b) => compareIds(ids.get(a)!, ids.get(b)!))

const compareIds = (a: SchemaId, b: SchemaId): number =>
  a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : compareVersions(a.version, b.version)
