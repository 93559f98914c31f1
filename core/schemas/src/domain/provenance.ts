/**
 * Where each value of a resolved output came from: the schema (`platform/version`) whose content supplied it,
 * the schema itself or one of its ancestors. The dashboard marks every value of the Output tab with it.
 *
 * It replays the merge of `merge.ts` on trees of sources instead of values: a tree mirrors a JSON value (an
 * object node for an object, a leaf for anything else), so merging two trees by the same rule (objects key by
 * key, anything else replaces) gives the tree of the merged value. Each schema's tree is built once, parents
 * left to right, then its own content on top, exactly the order resolution uses, so the result always agrees
 * with the stored output. Computed on the server, where the ancestors' contents are at hand, in time linear in
 * the sizes of the contents of the schema and its ancestors.
 */
import * as Predicate from "effect/Predicate"
import type * as Schema from "effect/Schema"
import { EXTENDS_KEY } from "./extendsRef.js"
import { type SchemaId, schemaKey } from "./schemaId.js"

/** One value of the output: its path of keys from the top, and the schema that supplied it. */
export interface ValueSource {
  readonly path: ReadonlyArray<string>
  /** `platform/version` of the schema whose content holds the value. */
  readonly source: string
}

/** What provenance needs of one schema: its content and the parents its references selected, in order. */
export interface ProvenanceInput {
  readonly content: Schema.JsonObject
  readonly parents: ReadonlyArray<SchemaId>
}

interface SourceNode {
  /** The last schema that wrote this value (for an object: that wrote an object here). */
  readonly source: string
  /** Present exactly when the value is an object. */
  readonly children: ReadonlyMap<string, SourceNode> | undefined
}

const isObject = (value: Schema.Json): value is Schema.JsonObject => Predicate.isObject(value) && !Array.isArray(value)

const nodeOf = (value: Schema.Json, source: string, dropKey?: string): SourceNode => {
  if (!isObject(value)) return { source, children: undefined }
  const children = new Map<string, SourceNode>()
  for (const key of Object.keys(value)) {
    if (key !== dropKey) children.set(key, nodeOf(value[key]!, source))
  }
  return { source, children }
}

/** `override` on top of `base`, by the rule of `deepMerge`; base keys keep their place, new keys follow. */
const mergeNodes = (base: SourceNode, override: SourceNode): SourceNode => {
  if (base.children === undefined || override.children === undefined) return override
  const children = new Map<string, SourceNode>()
  for (const [key, node] of base.children) {
    const next = override.children.get(key)
    children.set(key, next === undefined ? node : mergeNodes(node, next))
  }
  for (const [key, node] of override.children) if (!base.children.has(key)) children.set(key, node)
  return { source: override.source, children }
}

const flatten = (node: SourceNode, path: ReadonlyArray<string>, into: Array<ValueSource>): void => {
  // An empty object is a value of its own; any other object is described by its members.
  if (node.children === undefined || node.children.size === 0) {
    if (path.length > 0) into.push({ path, source: node.source })
    return
  }
  for (const [key, child] of node.children) flatten(child, [...path, key], into)
}

/**
 * The source of every value of `root`'s output, in the output's key order. `schemaOf` answers for the root and
 * each ancestor it reaches (resolution has already checked that they resolve, without a cycle). The ancestor
 * graph is walked with an explicit stack, each schema once, so a chain of any depth cannot overflow.
 */
export const traceProvenance = (
  root: SchemaId,
  schemaOf: (id: SchemaId) => ProvenanceInput,
): ReadonlyArray<ValueSource> => {
  const done = new Map<string, SourceNode>()
  const stack: Array<{ readonly id: SchemaId; readonly key: string; readonly input: ProvenanceInput }> = [
    { id: root, key: schemaKey(root), input: schemaOf(root) },
  ]
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!
    const pending = top.input.parents.find((parent) => !done.has(schemaKey(parent)))
    if (pending !== undefined) {
      const key = schemaKey(pending)
      // A schema on the stack already is a cycle, which resolution refuses; stop rather than loop if one slips by.
      if (stack.some((entry) => entry.key === key)) done.set(key, { source: key, children: new Map() })
      else stack.push({ id: pending, key, input: schemaOf(pending) })
      continue
    }
    stack.pop()
    const merged = top.input.parents.reduce<SourceNode>(
      (node, parent) => mergeNodes(node, done.get(schemaKey(parent))!),
      { source: top.key, children: new Map() },
    )
    done.set(top.key, mergeNodes(merged, nodeOf(top.input.content, top.key, EXTENDS_KEY)))
  }
  const values: Array<ValueSource> = []
  flatten(done.get(schemaKey(root))!, [], values)
  return values
}
