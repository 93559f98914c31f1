import { catalog, deepFreeze, jsonObjectArbitrary } from "@coffer/test-kit/schemaArbitraries"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { CircularDependency, InvalidReference, InvalidSchemaContent, type ResolveError, Unresolved } from "./errors.js"
import { parseReference } from "./extendsRef.js"
import { deepMerge } from "./merge.js"
import {
  type PlatformSnapshot,
  pendingPlatforms,
  type Resolution,
  resolveSchema,
  type SchemaToResolve,
} from "./resolve.js"
import { selectVersion } from "./select.js"

const succeeded = (result: Result.Result<Resolution, ResolveError>): Resolution => {
  if (Result.isFailure(result)) throw new Error(`expected success, got: ${result.failure.message}`)
  return result.success
}

const failed = (result: Result.Result<Resolution, ResolveError>): ResolveError => {
  if (Result.isSuccess(result)) throw new Error("expected a failure")
  return result.failure
}

const schema = (key: string, content: unknown): SchemaToResolve => {
  const [platform, version] = key.split("/") as [string, string]
  return { platform, version, content }
}

describe("resolveSchema", () => {
  it("resolves a schema without @extends to a copy of its content", () => {
    const content = { a: { b: [1] } }
    const resolution = succeeded(resolveSchema(schema("ios/1.0.0", content), catalog({ ios: ["1.0.0"] }).lookup))
    expect(resolution).toEqual({ output: content, dependencies: [], parents: [], sources: ["ios"] })
    expect(resolution.output).not.toBe(content)
  })

  it("merges one parent under the child and records the reference as written", () => {
    const { lookup } = catalog({ base: ["1.0.0"], ios: ["1.0.0"] }, { "base/1.0.0": { a: 1, nested: { x: 1 } } })
    const resolution = succeeded(
      resolveSchema(schema("ios/1.0.0", { "@extends": "base/1.0.0", nested: { y: 2 } }), lookup),
    )
    expect(resolution.output).toEqual({ a: 1, nested: { x: 1, y: 2 } })
    expect(resolution.dependencies).toEqual(["base/1.0.0"])
    expect(resolution.parents).toEqual([{ reference: "base/1.0.0", platform: "base", version: "1.0.0" }])
    expect(resolution.sources).toEqual(["base", "ios"])
  })

  it("merges several parents left to right, then the child, and unions their sources", () => {
    const { lookup } = catalog(
      { a: ["1.0.0"], b: ["1.0.0"], c: ["1.0.0"], z: ["1.0.0"] },
      { "a/1.0.0": { k: "a", fromA: true }, "b/1.0.0": { "@extends": "c/1.0.0", k: "b" }, "c/1.0.0": { fromC: 1 } },
    )
    const resolution = succeeded(resolveSchema(schema("z/1.0.0", { "@extends": ["a/1.0.0", "b/1.0.0"] }), lookup))
    expect(resolution.output).toEqual({ k: "b", fromA: true, fromC: 1 })
    expect(JSON.stringify(resolution.output)).toBe('{"k":"b","fromA":true,"fromC":1}')
    expect(resolution.sources).toEqual(["a", "b", "c", "z"])
  })

  it("follows ranges and latest to the version they select", () => {
    const { lookup } = catalog(
      { base: ["1.0.0", "1.4.0", "2.0.0", "3.0.0-rc.1"] },
      { "base/1.0.0": { v: "1.0.0" }, "base/1.4.0": { v: "1.4.0" }, "base/2.0.0": { v: "2.0.0" } },
    )
    const resolve = (reference: string) =>
      succeeded(resolveSchema(schema("app/1.0.0", { "@extends": reference }), lookup))
    expect(resolve("base/^1.0.0").output).toEqual({ v: "1.4.0" })
    expect(resolve("base").output).toEqual({ v: "2.0.0" })
    expect(resolve("base/latest").parents).toEqual([{ reference: "base/latest", platform: "base", version: "2.0.0" }])
  })

  it("merges a version without a saved schema as an empty object, and still counts its platform", () => {
    const { lookup } = catalog({ empty: ["1.0.0"] })
    const resolution = succeeded(resolveSchema(schema("app/1.0.0", { "@extends": "empty/1.0.0", a: 1 }), lookup))
    expect(resolution.output).toEqual({ a: 1 })
    expect(resolution.sources).toEqual(["app", "empty"])
  })

  it("resolves a diamond once per schema, without mistaking it for a cycle", () => {
    const { lookup } = catalog(
      { a: ["1.0.0"], b: ["1.0.0"], c: ["1.0.0"] },
      { "a/1.0.0": { root: true }, "b/1.0.0": { "@extends": "a", b: 1 }, "c/1.0.0": { "@extends": "a/^1.0.0", c: 1 } },
    )
    const resolution = succeeded(resolveSchema(schema("d/1.0.0", { "@extends": ["b", "c", "b/1.0.0"] }), lookup))
    expect(resolution.output).toEqual({ root: true, b: 1, c: 1 })
    expect(resolution.sources).toEqual(["a", "b", "c", "d"])
  })

  it("lets a version extend another version of its own platform", () => {
    const { lookup } = catalog({ ios: ["1.0.0", "2.0.0"] }, { "ios/1.0.0": { old: true } })
    expect(succeeded(resolveSchema(schema("ios/2.0.0", { "@extends": "ios/1.0.0" }), lookup)).sources).toEqual(["ios"])
  })

  it("never lets @extends into the output, and keeps a nested one as data", () => {
    const { lookup } = catalog({ a: ["1.0.0"] }, { "a/1.0.0": { "@extends": [], x: { "@extends": "data" } } })
    const output = succeeded(resolveSchema(schema("b/1.0.0", { "@extends": "a/1.0.0" }), lookup)).output
    expect(output).toEqual({ x: { "@extends": "data" } })
  })

  it("modifies neither the content nor the stored schemas", () => {
    const stored = deepFreeze({ a: { list: [1] } })
    const content = deepFreeze({ "@extends": "a/1.0.0", a: { more: true } } as Schema.JsonObject)
    const { lookup } = catalog({ a: ["1.0.0"] }, { "a/1.0.0": stored })
    const output = succeeded(resolveSchema(schema("b/1.0.0", content), lookup)).output
    expect(output).toEqual({ a: { list: [1], more: true } })
  })

  describe("rejects content", () => {
    it.each([[[]], [null], ["{}"], [3], [new Date(0)]])("that is not a plain JSON object: %o", (content) => {
      const error = failed(resolveSchema(schema("ios/1.0.0", content), catalog({ ios: ["1.0.0"] }).lookup))
      expect(error).toBeInstanceOf(InvalidSchemaContent)
      expect(error.message).toMatch(/^Invalid schema content: content must be a plain JSON object/)
    })

    it("whose @extends is neither a string nor an array of strings", () => {
      const error = failed(resolveSchema(schema("ios/1.0.0", { "@extends": 1 }), catalog({}).lookup))
      expect(error.message).toBe("Invalid schema content: @extends must be a string or an array of strings")
    })

    it("naming a stored parent that is not a plain JSON object", () => {
      const { lookup } = catalog({ a: ["1.0.0"], b: ["1.0.0"] }, { "a/1.0.0": [1], "b/1.0.0": { "@extends": 7 } })
      expect(failed(resolveSchema(schema("x/1.0.0", { "@extends": "a/1.0.0" }), lookup)).message).toBe(
        "Invalid schema content in a/1.0.0: content must be a plain JSON object, got an array",
      )
      expect(failed(resolveSchema(schema("x/1.0.0", { "@extends": "b/1.0.0" }), lookup)).message).toBe(
        "Invalid schema content in b/1.0.0: @extends must be a string or an array of strings",
      )
    })

    it("with a malformed reference", () => {
      const error = failed(resolveSchema(schema("ios/1.0.0", { "@extends": ["a", "a/^1"] }), catalog({ a: [] }).lookup))
      expect(error).toBeInstanceOf(InvalidReference)
      expect(error.message).toContain('"a/^1"')
    })
  })

  describe("reports an unresolved reference", () => {
    const { lookup } = catalog(
      { a: ["1.0.0", "2.0.0-beta"], none: [], broken: ["1.0.0"] },
      { "a/1.0.0": { a: 1 }, "broken/1.0.0": { "@extends": "gone/1.0.0" } },
    )
    it.each([
      ["missing/1.0.0", 'platform "missing" was not found'],
      ["a/3.0.0", 'version "3.0.0" of platform "a" was not found'],
      ["a/^2.0.0", 'no version of platform "a" matches ^2.0.0'],
      ["none", 'platform "none" has no versions'],
    ])("%s", (reference, reason) => {
      const error = failed(resolveSchema(schema("ios/1.0.0", { "@extends": ["a/^1.0.0", reference] }), lookup))
      expect(error).toBeInstanceOf(Unresolved)
      expect(error.message).toBe(`Unresolved @extends reference "${reference}" in ios/1.0.0: ${reason}`)
    })

    it("in an ancestor, naming the ancestor", () => {
      const error = failed(resolveSchema(schema("ios/1.0.0", { "@extends": "broken/1.0.0" }), lookup))
      expect(error.message).toBe(
        'Unresolved @extends reference "gone/1.0.0" in broken/1.0.0: platform "gone" was not found',
      )
    })
  })

  describe("detects a cycle", () => {
    it("of a schema extending itself", () => {
      const error = failed(
        resolveSchema(schema("a/1.0.0", { "@extends": "a/1.0.0" }), catalog({ a: ["1.0.0"] }).lookup),
      )
      expect(error).toBeInstanceOf(CircularDependency)
      expect(error.message).toBe("Circular dependency detected: a/1.0.0 -> a/1.0.0")
    })

    it("closed by the content being saved, whatever the stored content says", () => {
      const { lookup } = catalog(
        { a: ["1.0.0"], b: ["1.0.0"] },
        { "a/1.0.0": {}, "b/1.0.0": { "@extends": "a/1.0.0" } },
      )
      const error = failed(resolveSchema(schema("a/1.0.0", { "@extends": "b/1.0.0" }), lookup))
      expect(error.message).toBe("Circular dependency detected: a/1.0.0 -> b/1.0.0 -> a/1.0.0")
      expect((error as CircularDependency).chain).toEqual(["a/1.0.0", "b/1.0.0", "a/1.0.0"])
    })

    it("that the content being saved breaks", () => {
      const { lookup } = catalog(
        { a: ["1.0.0"], b: ["1.0.0"] },
        { "a/1.0.0": { "@extends": "b/1.0.0" }, "b/1.0.0": { "@extends": "a/1.0.0", b: 1 } },
      )
      expect(succeeded(resolveSchema(schema("b/1.0.0", { b: 2 }), lookup)).output).toEqual({ b: 2 })
    })

    it("through latest and ranges", () => {
      const { lookup } = catalog({ a: ["1.0.0"], b: ["1.0.0", "2.0.0"] }, { "b/2.0.0": { "@extends": "a/^1.0.0" } })
      expect(failed(resolveSchema(schema("a/1.0.0", { "@extends": "b" }), lookup)).message).toBe(
        "Circular dependency detected: a/1.0.0 -> b/2.0.0 -> a/1.0.0",
      )
      expect(failed(resolveSchema(schema("a/1.0.0", { "@extends": "a" }), lookup)).message).toBe(
        "Circular dependency detected: a/1.0.0 -> a/1.0.0",
      )
    })

    it("deep among the ancestors, reporting the path from the schema being resolved", () => {
      const { lookup } = catalog(
        { a: ["1.0.0"], b: ["1.0.0"], c: ["1.0.0"], d: ["1.0.0"] },
        {
          "a/1.0.0": { "@extends": "b/1.0.0" },
          "b/1.0.0": { "@extends": ["d/1.0.0", "c/1.0.0"] },
          "c/1.0.0": { "@extends": "a/1.0.0" },
        },
      )
      expect(failed(resolveSchema(schema("x/1.0.0", { "@extends": "a/1.0.0" }), lookup)).message).toBe(
        "Circular dependency detected: x/1.0.0 -> a/1.0.0 -> b/1.0.0 -> c/1.0.0 -> a/1.0.0",
      )
    })
  })
})

describe("pendingPlatforms", () => {
  it("lets a store load exactly the dependency closure, round by round", () => {
    const database = catalog(
      { a: ["1.0.0", "2.0.0"], b: ["1.0.0"], c: ["1.0.0"], unrelated: ["1.0.0"] },
      {
        "a/1.0.0": { "@extends": "unrelated/1.0.0" },
        "a/2.0.0": { "@extends": ["b/1.0.0", "missing"] },
        "b/1.0.0": { "@extends": "c/1.0.0", b: 1 },
        "c/1.0.0": { c: 1 },
      },
    )
    const root = schema("app/1.0.0", { "@extends": ["a", "b/^1.0.0"] })
    const known = new Map<string, PlatformSnapshot | undefined>()
    const rounds: Array<ReadonlyArray<string>> = []
    for (let pending = pendingPlatforms(root, known); pending.length > 0; pending = pendingPlatforms(root, known)) {
      rounds.push(pending)
      for (const platform of pending) known.set(platform, database.snapshots.get(platform))
    }
    expect(rounds).toEqual([
      ["a", "b"],
      ["c", "missing"],
    ])
    const error = failed(resolveSchema(root, (platform) => known.get(platform)))
    expect(error.message).toBe('Unresolved @extends reference "missing" in a/2.0.0: platform "missing" was not found')
  })

  it("skips content resolution will reject anyway", () => {
    expect(pendingPlatforms(schema("x/1.0.0", []), new Map())).toEqual([])
    expect(pendingPlatforms(schema("x/1.0.0", { "@extends": ["/bad", "ok"] }), new Map())).toEqual(["ok"])
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Random graphs: any platforms, versions and references, cycles included.

const PLATFORMS = ["a", "b", "c", "d"]
const VERSIONS = ["1.0.0", "1.1.0", "2.0.0-rc.1", "2.0.0"]
const SPECS = ["", "/latest", "/1.0.0", "/1.1.0", "/2.0.0", "/2.0.0-rc.1", "/^1.0.0", "/~1.1.0", "/>=1.1.0"]
// Mostly references that can resolve, so that deep chains and cycles are common; some that never can.
const referenceArbitrary = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.tuple(fc.constantFrom(...PLATFORMS), fc.constantFrom(...SPECS)).map(([p, spec]) => p + spec),
  },
  { weight: 1, arbitrary: fc.constantFrom("zz", "zz/1.0.0", "a/^3.0.0") },
)

const graphArbitrary = fc.record({
  // A platform left out of the record does not exist; most have every version.
  versions: fc
    .tuple(
      ...PLATFORMS.map(() =>
        fc.oneof(
          { weight: 3, arbitrary: fc.constant(VERSIONS) },
          { weight: 2, arbitrary: fc.subarray(VERSIONS) },
          { weight: 1, arbitrary: fc.constant(null) },
        ),
      ),
    )
    .map((lists) => {
      const versions: Record<string, ReadonlyArray<string>> = {}
      lists.forEach((list, index) => {
        if (list !== null) versions[PLATFORMS[index]!] = list
      })
      return versions
    }),
  contents: fc.dictionary(
    fc.tuple(fc.constantFrom(...PLATFORMS), fc.constantFrom(...VERSIONS)).map(([p, v]) => `${p}/${v}`),
    fc.record({ "@extends": fc.array(referenceArbitrary, { maxLength: 2 }), value: fc.integer() }),
    { noNullPrototype: true, maxKeys: 16 },
  ),
  root: fc.tuple(fc.constantFrom(...PLATFORMS), fc.constantFrom(...VERSIONS)),
  rootExtends: fc.array(referenceArbitrary, { maxLength: 3 }),
})

type Graph = typeof graphArbitrary extends fc.Arbitrary<infer G> ? G : never

/** An independent walk of the selected edges: is a cycle or an unresolvable reference reachable from the root? */
const analyse = (graph: Graph) => {
  const rootKey = graph.root.join("/")
  const referencesOf = (key: string): ReadonlyArray<string> =>
    key === rootKey ? graph.rootExtends : (graph.contents[key]?.["@extends"] ?? [])
  let cycle = false
  let unresolved = false
  const sources = new Set<string>()
  const state = new Map<string, "open" | "closed">()
  const walk = (key: string): void => {
    if (state.get(key) === "open") cycle = true
    if (state.has(key)) return
    state.set(key, "open")
    sources.add(key.split("/")[0]!)
    for (const raw of referencesOf(key)) {
      const reference = Result.getOrThrow(parseReference(raw))
      const selected = selectVersion(reference, graph.versions[reference.platform])
      if (Result.isFailure(selected)) unresolved = true
      else walk(`${reference.platform}/${selected.success}`)
    }
    state.set(key, "closed")
  }
  walk(rootKey)
  const edge = (from: string, to: string): boolean =>
    referencesOf(from).some((raw) => {
      const reference = Result.getOrThrow(parseReference(raw))
      const selected = selectVersion(reference, graph.versions[reference.platform])
      return Result.isSuccess(selected) && `${reference.platform}/${selected.success}` === to
    })
  return { rootKey, cycle, unresolved, sources: [...sources].sort(), edge }
}

const resolveGraph = (graph: Graph) => {
  const { lookup } = catalog(graph.versions, graph.contents)
  const [platform, version] = graph.root
  return resolveSchema({ platform, version, content: { "@extends": graph.rootExtends, root: true } }, lookup)
}

describe("resolution on random graphs", () => {
  it("terminates and fails exactly when a cycle or an unresolvable reference is reachable", () => {
    fc.assert(
      fc.property(graphArbitrary, (graph) => {
        const facts = analyse(graph)
        const result = resolveGraph(graph)
        if (Result.isSuccess(result)) {
          expect(facts.cycle || facts.unresolved).toBe(false)
          expect(result.success.sources).toEqual(facts.sources)
          expect(Object.hasOwn(result.success.output, "@extends")).toBe(false)
          expect(result.success.output.root).toBe(true)
          return
        }
        const error = result.failure
        if (error._tag === "CircularDependency") {
          expect(facts.cycle).toBe(true)
          const chain = error.chain
          expect(chain[0]).toBe(facts.rootKey)
          expect(chain.indexOf(chain.at(-1)!)).toBeLessThan(chain.length - 1)
          for (let index = 1; index < chain.length; index++)
            expect(facts.edge(chain[index - 1]!, chain[index]!)).toBe(true)
          expect(error.message).toBe(`Circular dependency detected: ${chain.join(" -> ")}`)
        } else {
          expect(error._tag).toBe("Unresolved")
          expect(facts.unresolved).toBe(true)
        }
      }),
      { numRuns: 500 },
    )
  })

  it("finds the same answer with only the platforms pendingPlatforms asked for", () => {
    fc.assert(
      fc.property(graphArbitrary, (graph) => {
        const full = catalog(graph.versions, graph.contents)
        const [platform, version] = graph.root
        const root = { platform, version, content: { "@extends": graph.rootExtends, root: true } }
        const known = new Map<string, PlatformSnapshot | undefined>()
        for (let pending = pendingPlatforms(root, known); pending.length > 0; pending = pendingPlatforms(root, known)) {
          for (const name of pending) {
            expect(known.has(name)).toBe(false)
            known.set(name, full.lookup(name))
          }
        }
        const partial = resolveSchema(root, (name) => known.get(name))
        expect(partial).toEqual(resolveSchema(root, full.lookup))
      }),
      { numRuns: 300 },
    )
  })
})

describe("resolution of a chain", () => {
  it("equals folding deepMerge over the chain from its base", () => {
    // The link to the parent is the only @extends of each schema here.
    const contentArbitrary = jsonObjectArbitrary.filter((content) => !Object.hasOwn(content, "@extends"))
    const spellings = fc.constantFrom("", "/1.0.0", "/latest", "/^1.0.0", "/~1.0.0", "/>=1.0.0")
    fc.assert(
      fc.property(fc.array(fc.tuple(contentArbitrary, spellings), { minLength: 1, maxLength: 6 }), (links) => {
        const contents: Record<string, Schema.JsonObject> = {}
        const platforms: Record<string, ReadonlyArray<string>> = {}
        links.forEach(([content, spelling], index) => {
          platforms[`p${index}`] = ["1.0.0"]
          contents[`p${index}/1.0.0`] = index === 0 ? content : { ...content, "@extends": `p${index - 1}${spelling}` }
        })
        const top = `p${links.length - 1}/1.0.0`
        const resolution = succeeded(resolveSchema(schema(top, contents[top]), catalog(platforms, contents).lookup))
        const folded = links.reduce<Schema.JsonObject>((acc, [content]) => deepMerge(acc, content), {})
        expect(JSON.stringify(resolution.output)).toBe(JSON.stringify(folded))
        expect(resolution.sources).toEqual(Object.keys(platforms).sort())
      }),
    )
  })
})
