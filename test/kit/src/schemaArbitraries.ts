/**
 * Generators and helpers shared by the schemas domain tests: semantic versions,
 * JSON objects whose keys include the prototype-polluting ones, and in-memory platform catalogs.
 */

import type { PlatformLookup, PlatformSnapshot } from "@coffer/schemas"
import type * as Schema from "effect/Schema"
import fc from "fast-check"

const numeric = fc.integer({ min: 0, max: 12 }).map(String)

/** Valid versions with small numbers, so that generated lists collide and tie often. */
export const versionArbitrary: fc.Arbitrary<string> = fc
  .record({
    core: fc.tuple(numeric, numeric, numeric),
    prerelease: fc.option(
      fc.array(fc.oneof(numeric, fc.constantFrom("alpha", "beta", "rc", "x-1", "0a")), { minLength: 1, maxLength: 3 }),
    ),
    build: fc.option(
      fc.array(fc.oneof(numeric, fc.constantFrom("01", "007", "b", "exp-2")), { minLength: 1, maxLength: 2 }),
    ),
  })
  .map(
    ({ core, prerelease, build }) =>
      core.join(".") +
      (prerelease === null ? "" : `-${prerelease.join(".")}`) +
      (build === null ? "" : `+${build.join(".")}`),
  )

/** Builds an object the way `JSON.parse` does: every key, `__proto__` included, becomes an own data property. */
export const objectFromEntries = (entries: ReadonlyArray<readonly [string, Schema.Json]>): Schema.JsonObject => {
  const object: Record<string, Schema.Json> = {}
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
  }
  return object
}

// Integer-like keys are left out: objects list them first whatever the insertion order, which would make the
// insertion-ordered reference merge in the tests disagree on key order for reasons that have nothing to merge.
const keyArbitrary = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "@extends", "a", "b", "c"),
  fc.string({ maxLength: 3 }).filter((key) => !/^(0|[1-9]\d*)$/.test(key)),
)

const leafArbitrary: fc.Arbitrary<Schema.Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -5, max: 5 }),
  fc.string({ maxLength: 3 }),
)

const tree = fc.letrec<{ json: Schema.Json; object: Schema.JsonObject }>((tie) => ({
  json: fc.oneof({ depthSize: "small" }, leafArbitrary, tie("object"), fc.array(tie("json"), { maxLength: 3 })),
  object: fc.array(fc.tuple(keyArbitrary, tie("json")), { maxLength: 4 }).map(objectFromEntries),
}))

/** JSON objects, nested a few levels, with keys such as `__proto__`, `constructor` and `@extends`. */
export const jsonObjectArbitrary: fc.Arbitrary<Schema.JsonObject> = tree.object

/** Freezes a JSON value all the way down, so that any write to it throws in strict-mode code. */
export const deepFreeze = <A extends Schema.Json>(value: A): A => {
  if (value !== null && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child)
    Object.freeze(value)
  }
  return value
}

/** A lookup over `platform -> versions` with content keyed by `platform/version`. */
export const catalog = (
  platforms: Readonly<Record<string, ReadonlyArray<string>>>,
  schemas: Readonly<Record<string, unknown>> = {},
): { readonly lookup: PlatformLookup; readonly snapshots: ReadonlyMap<string, PlatformSnapshot> } => {
  const snapshots = new Map<string, PlatformSnapshot>()
  for (const [platform, versions] of Object.entries(platforms)) {
    const contents = new Map<string, unknown>()
    for (const version of versions) {
      const key = `${platform}/${version}`
      if (Object.hasOwn(schemas, key)) contents.set(version, schemas[key])
    }
    snapshots.set(platform, { versions, schemas: contents })
  }
  return { lookup: (platform) => snapshots.get(platform), snapshots }
}
