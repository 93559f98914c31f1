import { catalog, jsonObjectArbitrary } from "@coffer/test-kit/schemaArbitraries"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { traceProvenance, type ValueSource } from "./provenance.js"
import { makeResolver, type PlatformLookup } from "./resolve.js"
import type { SchemaId } from "./schemaId.js"

/** Provenance over a catalog, the way the use case computes it: parents from the resolver, content from the lookup. */
const provenance = (lookup: PlatformLookup, root: SchemaId) => {
  const resolver = makeResolver(lookup)
  const resolved = resolver.resolve(root)
  if (Result.isFailure(resolved)) throw new Error(resolved.failure.message)
  const values = traceProvenance(root, (id) => {
    const parents = resolver.resolve(id)
    if (Result.isFailure(parents)) throw new Error(parents.failure.message)
    const content = lookup(id.platform)?.schemas.get(id.version) ?? {}
    return { content: content as Schema.JsonObject, parents: parents.success.parents }
  })
  return { output: resolved.success.output, values }
}

/** The leaves of an output, as paths, in key order: what provenance must describe, one entry each. */
const leafPaths = (value: Schema.Json, path: ReadonlyArray<string> = []): ReadonlyArray<ReadonlyArray<string>> => {
  if (!Predicate.isObject(value)) return path.length === 0 ? [] : [path]
  const keys = Object.keys(value)
  if (keys.length === 0) return path.length === 0 ? [] : [path]
  return keys.flatMap((key) => leafPaths((value as Schema.JsonObject)[key]!, [...path, key]))
}

const sourceOf = (values: ReadonlyArray<ValueSource>, ...path: ReadonlyArray<string>) =>
  values.find((value) => JSON.stringify(value.path) === JSON.stringify(path))?.source

describe("traceProvenance", () => {
  it("marks each value with the schema that supplied it: the child over its parents, the later parent over the earlier", () => {
    const { lookup } = catalog(
      { base: ["1.0.0"], brand: ["2.0.0"], ios: ["3.0.0"] },
      {
        "base/1.0.0": { api: { url: "https://base", timeout: 5 }, colors: ["red"], flags: { a: true }, empty: {} },
        "brand/2.0.0": { "@extends": "base/1.0.0", colors: ["blue"], flags: { b: false } },
        "ios/3.0.0": { "@extends": ["base", "brand/^2.0.0"], api: { timeout: 10 }, nested: { "@extends": "kept" } },
      },
    )
    const { output, values } = provenance(lookup, { platform: "ios", version: "3.0.0" })
    expect(values.map((value) => value.path)).toEqual(leafPaths(output))
    expect(sourceOf(values, "api", "url")).toBe("base/1.0.0")
    expect(sourceOf(values, "api", "timeout")).toBe("ios/3.0.0")
    expect(sourceOf(values, "colors")).toBe("brand/2.0.0")
    expect(sourceOf(values, "flags", "a")).toBe("base/1.0.0")
    expect(sourceOf(values, "flags", "b")).toBe("brand/2.0.0")
    expect(sourceOf(values, "empty")).toBe("base/1.0.0")
    // Only the top-level directive is dropped: a nested "@extends" key is data of the child.
    expect(sourceOf(values, "nested", "@extends")).toBe("ios/3.0.0")
    expect(values.some((value) => value.path[0] === "@extends")).toBe(false)
  })

  it("lets a scalar replace an object and an object replace a scalar, as the merge does", () => {
    const { lookup } = catalog(
      { a: ["1.0.0"], b: ["1.0.0"], c: ["1.0.0"] },
      {
        "a/1.0.0": { k: { x: 1 }, s: 1 },
        "b/1.0.0": { "@extends": "a", k: 0, s: { y: 2 } },
        "c/1.0.0": { "@extends": "b", k: { z: 3 } },
      },
    )
    const { output, values } = provenance(lookup, { platform: "c", version: "1.0.0" })
    expect(output).toEqual({ k: { z: 3 }, s: { y: 2 } })
    expect(values).toEqual([
      { path: ["k", "z"], source: "c/1.0.0" },
      { path: ["s", "y"], source: "b/1.0.0" },
    ])
  })

  it("walks a chain 900 deep without recursion and names the root for its own values", () => {
    const depth = 900
    const platforms: Record<string, Array<string>> = {}
    const schemas: Record<string, unknown> = {}
    for (let level = 0; level < depth; level++) {
      platforms[`p${level}`] = ["1.0.0"]
      schemas[`p${level}/1.0.0`] = level === 0 ? { root: true } : { "@extends": `p${level - 1}`, [`l${level}`]: level }
    }
    const { values } = provenance(catalog(platforms, schemas).lookup, { platform: `p${depth - 1}`, version: "1.0.0" })
    expect(values).toHaveLength(depth)
    expect(sourceOf(values, "root")).toBe("p0/1.0.0")
    expect(sourceOf(values, `l${depth - 1}`)).toBe(`p${depth - 1}/1.0.0`)
  })

  it("describes every leaf of any merged output exactly once, each from a schema whose content holds that value", () => {
    fc.assert(
      fc.property(jsonObjectArbitrary, jsonObjectArbitrary, jsonObjectArbitrary, (a, b, child) => {
        const strip = (value: Schema.JsonObject) => {
          const copy = { ...value }
          delete (copy as Record<string, unknown>)["@extends"]
          return copy
        }
        const { lookup } = catalog(
          { a: ["1.0.0"], b: ["1.0.0"], c: ["1.0.0"] },
          {
            "a/1.0.0": strip(a),
            "b/1.0.0": strip(b),
            "c/1.0.0": { ...strip(child), "@extends": ["a", "b"] },
          },
        )
        const { output, values } = provenance(lookup, { platform: "c", version: "1.0.0" })
        expect(values.map((value) => value.path)).toEqual(leafPaths(output))
        for (const { path, source } of values) {
          const content = lookup(source.split("/")[0]!)!.schemas.get("1.0.0") as Schema.Json
          let here: Schema.Json | undefined = content
          for (const key of path) here = Predicate.isObject(here) ? (here as Schema.JsonObject)[key] : undefined
          let there: Schema.Json | undefined = output
          for (const key of path) there = Predicate.isObject(there) ? (there as Schema.JsonObject)[key] : undefined
          // The source holds this very value (an object there may hold fewer members than the merged one).
          if (Predicate.isObject(there)) expect(Predicate.isObject(here)).toBe(true)
          else expect(here).toEqual(there)
        }
      }),
    )
  })
})
