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
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import { validateContent } from "./content.js"
import {
  CircularDependency,
  InvalidSchemaContent,
  type ResolutionLimit,
  type ResolveError,
  Unresolved,
} from "./errors.js"
import { type Dependencies, type ExtendsRef, extendsOf, parseReference } from "./extendsRef.js"
import { checkOutput, depthExceeded, MAX_DEPTH } from "./limits.js"
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
  /** The longest `@extends` chain above the schema: 0 for a schema that extends nothing. */
  readonly depth: number
}

/** One schema whose ancestors are being resolved: an entry of the explicit stack that replaces recursion. */
interface Frame {
  readonly id: SchemaId
  readonly key: string
  readonly content: Schema.JsonObject
  readonly declared: Dependencies
  /** The next reference to follow. */
  next: number
  readonly parents: Array<SelectedParent>
  readonly outputs: Array<Schema.JsonObject>
  readonly sources: Set<string>
  depth: number
}

/**
 * Resolves schemas against one unchanging lookup, remembering every schema it resolved: a cascade resolves all
 * its targets with one resolver, so each ancestor is merged once for the whole cascade, not once per target.
 * Iterative (an explicit stack, never recursion), so a chain of any depth cannot overflow the call stack; the
 * depth limit stops it at {@link MAX_DEPTH}. Each output is held to {@link MAX_OUTPUT_BYTES}.
 */
export interface Resolver {
  /** Resolves the schema `contentOf` gives for `id`, and (memoised) everything it extends. */
  readonly resolve: (id: SchemaId) => Result.Result<Resolution, ResolveError>
}

/**
 * A resolver over a lookup. `root`, when given, is a schema whose content replaces the stored one (a save being
 * checked); every other schema's content comes from `lookup`.
 */
export const makeResolver = (lookup: PlatformLookup, root?: SchemaToResolve): Resolver => {
  const rootKey = root === undefined ? undefined : schemaKey(root)
  const done = new Map<string, Resolved>()
  // Many schemas hold the same references (`base/^1.0.0` in every dependent of a fan-out): each is parsed and
  // selected once per resolver, which the unchanging lookup allows.
  const parsed = new Map<string, ReturnType<typeof parseReference>>()
  const selections = new Map<string, ReturnType<typeof selectVersion>>()
  const parse = (raw: string) => {
    let result = parsed.get(raw)
    if (result === undefined) {
      result = parseReference(raw)
      parsed.set(raw, result)
    }
    return result
  }
  const select = (reference: ExtendsRef) => {
    let result = selections.get(reference.raw)
    if (result === undefined) {
      result = selectVersion(reference, lookup(reference.platform)?.versions)
      selections.set(reference.raw, result)
    }
    return result
  }
  const dependenciesOf = (content: Schema.JsonObject): Result.Result<Dependencies, ResolveError> =>
    Result.flatMap(extendsOf(content), (dependencies) =>
      Result.map(Result.all(dependencies.map(parse)), (references) => ({ dependencies, references })),
    )

  const contentOf = (id: SchemaId, key: string): unknown => {
    if (key === rootKey) return root!.content
    const schemas = lookup(id.platform)?.schemas
    return schemas?.has(id.version) ? schemas.get(id.version) : {}
  }

  // The schema being resolved reports its own problems unnamed; an ancestor's are named.
  const frameOf = (id: SchemaId, key: string, named: string | undefined): Result.Result<Frame, ResolveError> => {
    const content = validateContent(contentOf(id, key), named)
    if (Result.isFailure(content)) return Result.fail(content.failure)
    const declared = dependenciesOf(content.success)
    if (Result.isFailure(declared)) {
      const error = declared.failure
      return Result.fail(
        error._tag === "InvalidSchemaContent"
          ? new InvalidSchemaContent({ schema: named, reason: error.reason })
          : error,
      )
    }
    const frame: Frame = {
      id,
      key,
      content: content.success,
      declared: declared.success,
      next: 0,
      parents: [],
      outputs: [],
      sources: new Set([id.platform]),
      depth: 0,
    }
    return Result.succeed(frame)
  }

  const finish = (frame: Frame): Result.Result<Resolved, ResolveError> => {
    const output = mergeAll(frame.outputs, frame.content)
    const bounded = checkOutput(output, frame.key)
    if (Result.isFailure(bounded)) return Result.fail(bounded.failure)
    const resolved: Resolved = {
      output,
      dependencies: frame.declared.dependencies,
      parents: frame.parents,
      sources: frame.sources,
      depth: frame.depth,
    }
    done.set(frame.key, resolved)
    return Result.succeed(resolved)
  }

  const adopt = (frame: Frame, parent: SelectedParent, resolved: Resolved): ResolutionLimit | undefined => {
    frame.parents.push(parent)
    frame.outputs.push(resolved.output)
    for (const source of resolved.sources) frame.sources.add(source)
    frame.depth = Math.max(frame.depth, resolved.depth + 1)
    return frame.depth > MAX_DEPTH ? depthExceeded(frame.key) : undefined
  }

  const visit = (id: SchemaId): Result.Result<Resolved, ResolveError> => {
    const start = schemaKey(id)
    const cached = done.get(start)
    if (cached !== undefined) return Result.succeed(cached)
    const first = frameOf(id, start, undefined)
    if (Result.isFailure(first)) return Result.fail(first.failure)
    const stack: Array<Frame> = [first.success]
    const onPath = new Set([start])
    for (;;) {
      const frame = stack[stack.length - 1]!
      const reference = frame.declared.references[frame.next]
      if (reference === undefined) {
        stack.pop()
        onPath.delete(frame.key)
        const resolved = finish(frame)
        if (Result.isFailure(resolved)) return resolved
        const below = stack[stack.length - 1]
        if (below === undefined) return resolved
        const parent = below.declared.references[below.next]!
        below.next += 1
        const exceeded = adopt(below, { ...frame.id, reference: parent.raw }, resolved.success)
        if (exceeded !== undefined) return Result.fail(exceeded)
        continue
      }
      const selected = select(reference)
      if (Result.isFailure(selected)) {
        return Result.fail(new Unresolved({ ...selected.failure, referencedBy: frame.key }))
      }
      const parent = { platform: reference.platform, version: selected.success }
      const key = schemaKey(parent)
      const known = done.get(key)
      if (known !== undefined) {
        frame.next += 1
        const exceeded = adopt(frame, { ...parent, reference: reference.raw }, known)
        if (exceeded !== undefined) return Result.fail(exceeded)
        continue
      }
      if (onPath.has(key)) {
        return Result.fail(new CircularDependency({ chain: [...stack.map((entry) => entry.key), key] }))
      }
      // The stack is a chain of `@extends`: deeper than the limit, the schema at its bottom is too deep.
      if (stack.length > MAX_DEPTH) return Result.fail(depthExceeded(start))
      const next = frameOf(parent, key, key)
      if (Result.isFailure(next)) return Result.fail(next.failure)
      stack.push(next.success)
      onPath.add(key)
    }
  }

  return {
    resolve: (id) =>
      Result.map(visit(id), (resolved) => ({
        output: resolved.output,
        dependencies: resolved.dependencies,
        parents: resolved.parents,
        sources: [...resolved.sources].sort(),
      })),
  }
}

/**
 * Resolves `schema` against the platforms `lookup` knows. Terminates on any data: each schema is resolved at
 * most once (memoised) and a schema met again while its own ancestors are being resolved is a cycle.
 */
export const resolveSchema = (
  schema: SchemaToResolve,
  lookup: PlatformLookup,
): Result.Result<Resolution, ResolveError> => makeResolver(lookup, schema).resolve(schema)

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
