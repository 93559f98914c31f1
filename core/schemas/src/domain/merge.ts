/**
 * The deep merge behind `@extends` (DESIGN.md): objects merge key by key; arrays, scalars and `null` on the
 * overriding side replace; the top-level `@extends` directive never reaches the output; several parents merge
 * left to right, then the child on top.
 *
 * Content is user input, so keys such as `__proto__`, `constructor` and `prototype` are ordinary data here. Every
 * key becomes an own, enumerable data property and only own keys are ever read, so no key can reach or replace a
 * prototype, and `JSON.stringify` of the output prints exactly those keys. The output shares no object or array
 * with the inputs, so a caller mutating it cannot change a stored schema.
 *
 * The merge is not associative: with `a = {k: {x: 1}}`, `b = {k: 0}`, `c = {k: {y: 2}}`, merging `(a, b)` then `c`
 * gives `{k: {y: 2}}` while `a` with `(b, c)` gives `{k: {x: 1, y: 2}}`. That is why the order is fixed.
 */
import * as Predicate from "effect/Predicate"
import type * as Schema from "effect/Schema"
import { EXTENDS_KEY } from "./extendsRef.js"

/** `override` merged on top of `base`; the top-level `@extends` of either is dropped. Inputs are not modified. */
export const deepMerge = (base: Schema.JsonObject, override: Schema.JsonObject): Schema.JsonObject =>
  // Only the top level carries the directive; a nested "@extends" key is ordinary data and is kept.
  mergeObjects(base, override, EXTENDS_KEY)

/** The parents merged left to right, then the child on top: the `output` of a schema extending `parents`. */
export const mergeAll = (parents: ReadonlyArray<Schema.JsonObject>, child: Schema.JsonObject): Schema.JsonObject => {
  // Merged onto the first parent rather than onto `{}`: the same output, one copy of the parents fewer, which is
  // most of the work in a long chain, where each schema's output copies its parent's whole (issue 11).
  const [first, ...rest] = parents
  return deepMerge(first === undefined ? {} : rest.reduce(deepMerge, first), child)
}

/** A deep copy of a JSON value built the same safe way as merge outputs. */
export const cloneJson = (value: Schema.Json): Schema.Json => {
  if (Array.isArray(value)) return value.map(cloneJson)
  if (isJsonObject(value)) return mergeObjects({}, value)
  return value
}

const isJsonObject = (value: Schema.Json | undefined): value is Schema.JsonObject => Predicate.isObject(value)

// Base keys keep their position (JSON key order stays stable across saves); keys new in `override` follow.
const mergeObjects = (base: Schema.JsonObject, override: Schema.JsonObject, dropKey?: string): Schema.JsonObject => {
  const output: Record<string, Schema.Json> = {}
  for (const key of Object.keys(base)) {
    if (key === dropKey) continue
    const previous = base[key]!
    const next = Object.hasOwn(override, key) ? override[key]! : undefined
    if (next === undefined) define(output, key, cloneJson(previous))
    else
      define(output, key, isJsonObject(previous) && isJsonObject(next) ? mergeObjects(previous, next) : cloneJson(next))
  }
  for (const key of Object.keys(override)) {
    if (key !== dropKey && !Object.hasOwn(base, key)) define(output, key, cloneJson(override[key]!))
  }
  return output
}

/**
 * Sets an own property. Assigned, except `__proto__`, the one key whose assignment would reach a setter (the
 * prototype's) instead of making a property: defining every key cost twice the merge of a long chain.
 */
const define = (target: Record<string, Schema.Json>, key: string, value: Schema.Json): void => {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}
