/**
 * Resolution of one schema: follow its `@extends` references through every ancestor, select a version for each,
 * merge the ancestors' resolved outputs left to right and the content on top, and record which platforms were
 * merged in. It is synchronous and pure: the store first loads the platforms resolution needs (see
 * {@link pendingPlatforms}), then resolves in memory.
 *
 * Decisions (also in the package README):
 * - A version that exists but has no saved schema yet resolves as `{}`: the reference names an existing
 *   platform/version pair, which is all seed 000 §4 rule 4 asks, and its platform still counts as a source.
 * - `sources` holds the schema's own platform and every platform merged in, transitively, even through empty
 *   schemas, because a scoped token must cover each of them (seed 000 §5 rule 4).
 * - Ancestors are resolved from their content, never from a stored output, so a stale output cannot leak in
 *   and a cycle closed by the content being saved is seen at once.
 * - A cycle is reported with the path from the schema being resolved to the first repeated schema.
 */
import { Result, type Schema } from "effect"
import { validateContent } from "./content.js"
import { CircularDependency, InvalidSchemaContent, type ResolveError, Unresolved } from "./errors.js"
import { extendsOf, parseDependencies, parseReference } from "./extendsRef.js"
import { mergeAll } from "./merge.js"
import { type SchemaId, schemaKey } from "./schemaId.js"
import { selectVersion } from "./select.js"

/** What the store knows of one platform: its versions and the content saved for them. */
export interface PlatformSnapshot {
  readonly versions: ReadonlyArray<string>
  /** Saved content by version; a listed version absent here has no schema yet. Checked when used. */
  readonly schemas: ReadonlyMap<string, unknown>
}

/** The platform of that name, or `undefined` when it does not exist. */
export type PlatformLookup = (platform: string) => PlatformSnapshot | undefined

/** The schema to resolve; its `content` (for a save, the new content) takes the place of any stored one. */
export interface SchemaToResolve extends SchemaId {
  readonly content: unknown
}

/** The version one direct reference selected. */
export interface SelectedParent extends SchemaId {
  /** The reference as written. */
  readonly reference: string
}

export interface Resolution {
  /** The merged content, without `@extends`. */
  readonly output: Schema.JsonObject
  /** The `@extends` references as written. */
  readonly dependencies: ReadonlyArray<string>
  /** What each reference selected, in the order written. */
  readonly parents: ReadonlyArray<SelectedParent>
  /** Sorted, distinct names of the platforms merged into `output`, the schema's own included. */
  readonly sources: ReadonlyArray<string>
}

interface Resolved {
  readonly output: Schema.JsonObject
  readonly dependencies: ReadonlyArray<string>
  readonly parents: ReadonlyArray<SelectedParent>
  readonly sources: ReadonlySet<string>
}

/**
 * Resolves `schema` against the platforms `lookup` knows. Terminates on any data: each schema is resolved at
 * most once (memoised) and a schema met again while its own ancestors are being resolved is a cycle.
 */
export const resolveSchema = (
  schema: SchemaToResolve,
  lookup: PlatformLookup,
): Result.Result<Resolution, ResolveError> => {
  const rootKey = schemaKey(schema)
  const done = new Map<string, Resolved>()
  const path: Array<string> = []
  const onPath = new Set<string>()

  const contentOf = (id: SchemaId, key: string): unknown => {
    if (key === rootKey) return schema.content
    const schemas = lookup(id.platform)?.schemas
    return schemas?.has(id.version) ? schemas.get(id.version) : {}
  }

  const visit = (id: SchemaId): Result.Result<Resolved, ResolveError> => {
    const key = schemaKey(id)
    const cached = done.get(key)
    if (cached !== undefined) return Result.succeed(cached)
    if (onPath.has(key)) return Result.fail(new CircularDependency({ chain: [...path, key] }))
    // The schema being resolved reports its own problems unnamed; an ancestor's are named.
    const named = key === rootKey ? undefined : key
    const content = validateContent(contentOf(id, key), named)
    if (Result.isFailure(content)) return Result.fail(content.failure)
    const declared = parseDependencies(content.success)
    if (Result.isFailure(declared)) {
      const error = declared.failure
      return Result.fail(
        error._tag === "InvalidSchemaContent"
          ? new InvalidSchemaContent({ schema: named, reason: error.reason })
          : error,
      )
    }
    path.push(key)
    onPath.add(key)
    const parents: Array<SelectedParent> = []
    const outputs: Array<Schema.JsonObject> = []
    const sources = new Set([id.platform])
    for (const reference of declared.success.references) {
      const selected = selectVersion(reference, lookup(reference.platform)?.versions)
      if (Result.isFailure(selected)) {
        return Result.fail(new Unresolved({ ...selected.failure, referencedBy: key }))
      }
      const parent = { platform: reference.platform, version: selected.success }
      const resolved = visit(parent)
      if (Result.isFailure(resolved)) return resolved
      parents.push({ ...parent, reference: reference.raw })
      outputs.push(resolved.success.output)
      for (const source of resolved.success.sources) sources.add(source)
    }
    path.pop()
    onPath.delete(key)
    const result: Resolved = {
      output: mergeAll(outputs, content.success),
      dependencies: declared.success.dependencies,
      parents,
      sources,
    }
    done.set(key, result)
    return Result.succeed(result)
  }

  return Result.map(visit(schema), (resolved) => ({ ...resolved, sources: [...resolved.sources].sort() }))
}

/**
 * The platforms resolving `schema` would look up that `known` does not hold yet: the store loads them (recording
 * absent ones as `undefined`) and asks again until none remain, then resolves with `known` as the lookup. It
 * follows only the versions references select, so it loads the dependency closure and nothing more. Malformed
 * content and unresolvable references are skipped here; `resolveSchema` reports them.
 */
export const pendingPlatforms = (
  schema: SchemaToResolve,
  known: ReadonlyMap<string, PlatformSnapshot | undefined>,
): ReadonlyArray<string> => {
  const rootKey = schemaKey(schema)
  const pending = new Set<string>()
  const seen = new Set<string>()
  const stack: Array<{ readonly id: SchemaId; readonly content: unknown }> = [{ id: schema, content: schema.content }]
  seen.add(rootKey)
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const content = validateContent(next.content)
    if (Result.isFailure(content)) continue
    const declared = extendsOf(content.success)
    if (Result.isFailure(declared)) continue
    for (const raw of declared.success) {
      const reference = parseReference(raw)
      if (Result.isFailure(reference)) continue
      const { platform } = reference.success
      if (!known.has(platform)) {
        pending.add(platform)
        continue
      }
      const snapshot = known.get(platform)
      const selected = selectVersion(reference.success, snapshot?.versions)
      if (snapshot === undefined || Result.isFailure(selected)) continue
      const id = { platform, version: selected.success }
      const key = schemaKey(id)
      if (seen.has(key)) continue
      seen.add(key)
      stack.push({ id, content: snapshot.schemas.has(id.version) ? snapshot.schemas.get(id.version) : {} })
    }
  }
  return [...pending].sort()
}
