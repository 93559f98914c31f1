import * as Result from "effect/Result"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type CascadeGraph,
  type CascadeTrigger,
  type DependencyEdge,
  dependencyEdges,
  planCascade,
  wouldChangeSelection,
} from "./cascade.js"
import { parseReference } from "./extendsRef.js"
import { type SchemaId, schemaKey } from "./schemaId.js"
import { selectVersion } from "./select.js"

const id = (key: string): SchemaId => {
  const [platform, version] = key.split("/") as [string, string]
  return { platform, version }
}

/** A store of `platform -> versions` and `schema key -> references as written`, seen the way a store serves it. */
const graphOf = (
  versions: Readonly<Record<string, ReadonlyArray<string>>>,
  dependencies: Readonly<Record<string, ReadonlyArray<string>>>,
): CascadeGraph => {
  const edges = Object.entries(dependencies).flatMap(([key, references]) => dependencyEdges(id(key), references))
  return {
    dependentsOf: (platform) => edges.filter((edge) => edge.platform === platform),
    versionsOf: (platform) => (Object.hasOwn(versions, platform) ? versions[platform] : undefined),
  }
}

const plan = (trigger: CascadeTrigger, graph: CascadeGraph): ReadonlyArray<string> =>
  planCascade(trigger, graph).map(schemaKey)

const saved = (key: string): CascadeTrigger => ({ _tag: "SchemaSaved", schema: id(key) })

const ref = (raw: string) => Result.getOrThrow(parseReference(raw))

describe("dependencyEdges", () => {
  it("indexes each parsable reference by the platform it names", () => {
    const edges: ReadonlyArray<DependencyEdge> = dependencyEdges(id("app/1.0.0"), ["ios", "web/^1.0.0+b", "/bad"])
    expect(edges).toEqual([
      { dependent: id("app/1.0.0"), platform: "ios", reference: "ios" },
      { dependent: id("app/1.0.0"), platform: "web", reference: "web/^1.0.0+b" },
    ])
  })
})

describe("wouldChangeSelection", () => {
  it("sees latest move to a new release, but not to a new pre-release", () => {
    expect(wouldChangeSelection(ref("a"), ["1.0.0"], ["1.0.0", "1.1.0"])).toBe(true)
    expect(wouldChangeSelection(ref("a/latest"), ["1.0.0"], ["1.0.0", "2.0.0-rc.1"])).toBe(false)
    expect(wouldChangeSelection(ref("a"), ["1.0.0"], ["1.0.0", "0.9.0"])).toBe(false)
  })

  it("sees a range move only to a version inside it", () => {
    expect(wouldChangeSelection(ref("a/^1.0.0"), ["1.0.0"], ["1.0.0", "1.5.0"])).toBe(true)
    expect(wouldChangeSelection(ref("a/^1.0.0"), ["1.0.0"], ["1.0.0", "2.0.0"])).toBe(false)
    expect(wouldChangeSelection(ref("a/~1.0.0"), ["1.0.0"], ["1.0.0", "1.1.0"])).toBe(false)
  })

  it("never moves an exact reference, except when its version appears or disappears", () => {
    expect(wouldChangeSelection(ref("a/1.0.0"), ["1.0.0"], ["1.0.0", "1.0.1"])).toBe(false)
    expect(wouldChangeSelection(ref("a/1.0.1"), ["1.0.0"], ["1.0.0", "1.0.1"])).toBe(true)
    expect(wouldChangeSelection(ref("a/1.0.0"), ["1.0.0"], [])).toBe(true)
  })

  it("sees a range that matched nothing start matching, and a platform appear", () => {
    expect(wouldChangeSelection(ref("a/^2.0.0"), ["1.0.0"], ["1.0.0", "2.0.0"])).toBe(true)
    expect(wouldChangeSelection(ref("a"), undefined, ["1.0.0"])).toBe(true)
    expect(wouldChangeSelection(ref("a/^3.0.0"), ["1.0.0"], ["1.0.0", "2.0.0"])).toBe(false)
  })
})

describe("planCascade after a schema is saved", () => {
  it("lists transitive dependents, dependencies first", () => {
    const graph = graphOf({ a: ["1.0.0"], b: ["1.0.0"], c: ["1.0.0"] }, { "b/1.0.0": ["a/1.0.0"], "c/1.0.0": ["b"] })
    expect(plan(saved("a/1.0.0"), graph)).toEqual(["b/1.0.0", "c/1.0.0"])
    expect(plan(saved("b/1.0.0"), graph)).toEqual(["c/1.0.0"])
    expect(plan(saved("c/1.0.0"), graph)).toEqual([])
  })

  it("leaves out dependents whose reference selects another version", () => {
    const graph = graphOf(
      { a: ["1.0.0", "1.2.0", "2.0.0"], x: ["1.0.0"] },
      {
        "x/1.0.0": ["a/2.0.0"],
        "y/1.0.0": ["a/^1.0.0"],
        "z/1.0.0": ["a"],
        "w/1.0.0": ["a/1.0.0"],
        "same/1.0.0": ["a/~1.2.0"],
      },
    )
    expect(plan(saved("a/1.0.0"), graph)).toEqual(["w/1.0.0"])
    expect(plan(saved("a/1.2.0"), graph)).toEqual(["same/1.0.0", "y/1.0.0"])
    expect(plan(saved("a/2.0.0"), graph)).toEqual(["x/1.0.0", "z/1.0.0"])
  })

  it("puts a schema after every affected schema it depends on, however it was found", () => {
    // m reaches a directly and through z, b directly and through m: names sort the other way round.
    const graph = graphOf(
      { a: ["1.0.0"], m: ["1.0.0"], z: ["1.0.0"] },
      { "z/1.0.0": ["a/1.0.0"], "m/1.0.0": ["a/1.0.0", "z/1.0.0"], "b/1.0.0": ["m/1.0.0", "a/1.0.0"] },
    )
    expect(plan(saved("a/1.0.0"), graph)).toEqual(["z/1.0.0", "m/1.0.0", "b/1.0.0"])
  })

  it("lists each schema of a diamond once", () => {
    const graph = graphOf(
      { a: ["1.0.0"], b: ["1.0.0"], c: ["1.0.0"] },
      { "b/1.0.0": ["a"], "c/1.0.0": ["a"], "d/1.0.0": ["b", "c", "b/1.0.0"] },
    )
    expect(plan(saved("a/1.0.0"), graph)).toEqual(["b/1.0.0", "c/1.0.0", "d/1.0.0"])
  })

  it("includes versions of the saved schema's own platform that extend it", () => {
    const graph = graphOf({ a: ["1.0.0", "2.0.0"] }, { "a/2.0.0": ["a/1.0.0"] })
    expect(plan(saved("a/1.0.0"), graph)).toEqual(["a/2.0.0"])
  })

  it("terminates on cyclic stored data and never lists the saved schema", () => {
    const graph = graphOf(
      { a: ["1.0.0"], b: ["1.0.0"], x: ["1.0.0"], y: ["1.0.0"] },
      { "a/1.0.0": ["b/1.0.0"], "b/1.0.0": ["a/1.0.0"], "x/1.0.0": ["a", "y"], "y/1.0.0": ["x"] },
    )
    expect(plan(saved("a/1.0.0"), graph)).toEqual(["b/1.0.0", "y/1.0.0", "x/1.0.0"])
  })
})

describe("planCascade after a platform's versions change", () => {
  const dependencies = {
    "latest/1.0.0": ["a"],
    "caret/1.0.0": ["a/^1.0.0"],
    "exact/1.0.0": ["a/1.0.0"],
    "child/1.0.0": ["latest/1.0.0"],
    "other/1.0.0": ["b"],
  }

  it("lists the dependents whose selection moves, and theirs", () => {
    const versions = { a: ["1.0.0", "2.0.0"], b: ["1.0.0"], latest: ["1.0.0"], caret: ["1.0.0"], exact: ["1.0.0"] }
    const trigger: CascadeTrigger = { _tag: "VersionsChanged", platform: "a", before: ["1.0.0"], after: versions.a }
    expect(plan(trigger, graphOf(versions, dependencies))).toEqual(["latest/1.0.0", "child/1.0.0"])
  })

  it("lists range dependents when the new version falls in their range", () => {
    const versions = { a: ["1.0.0", "1.1.0"], b: ["1.0.0"], latest: ["1.0.0"], caret: ["1.0.0"], exact: ["1.0.0"] }
    const trigger: CascadeTrigger = { _tag: "VersionsChanged", platform: "a", before: ["1.0.0"], after: versions.a }
    expect(plan(trigger, graphOf(versions, dependencies))).toEqual(["caret/1.0.0", "latest/1.0.0", "child/1.0.0"])
  })

  it("lists nothing when no selection moves", () => {
    const versions = { a: ["1.0.0", "3.0.0-beta"], latest: ["1.0.0"] }
    const trigger: CascadeTrigger = { _tag: "VersionsChanged", platform: "a", before: ["1.0.0"], after: versions.a }
    expect(plan(trigger, graphOf(versions, dependencies))).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Random stores, cycles included, checked against an independent reachability walk.

const PLATFORMS = ["a", "b", "c"]
const VERSIONS = ["1.0.0", "1.1.0", "2.0.0"]
const KEYS = PLATFORMS.flatMap((platform) => VERSIONS.map((version) => `${platform}/${version}`))
const referenceArbitrary = fc
  .tuple(fc.constantFrom(...PLATFORMS), fc.constantFrom("", "/1.0.0", "/2.0.0", "/^1.0.0", "/>=1.1.0"))
  .map(([platform, spec]) => platform + spec)

const storeArbitrary = fc.record({
  versions: fc.tuple(...PLATFORMS.map(() => fc.subarray(VERSIONS, { minLength: 1 }))),
  dependencies: fc.dictionary(fc.constantFrom(...KEYS), fc.array(referenceArbitrary, { maxLength: 3 }), {
    noNullPrototype: true,
  }),
  saved: fc.constantFrom(...KEYS),
})

describe("planCascade on random stores", () => {
  it("lists exactly the schemas that reach the saved one, once each, after what they depend on", () => {
    fc.assert(
      fc.property(storeArbitrary, (store) => {
        const versions = Object.fromEntries(PLATFORMS.map((platform, index) => [platform, store.versions[index]!]))
        const existing = new Set(PLATFORMS.flatMap((platform) => versions[platform]!.map((v) => `${platform}/${v}`)))
        const dependencies = Object.fromEntries(Object.entries(store.dependencies).filter(([key]) => existing.has(key)))
        // Direct selected edges: key -> the keys it extends.
        const parents = (key: string): ReadonlyArray<string> =>
          (dependencies[key] ?? []).flatMap((raw) => {
            const reference = ref(raw)
            const selected = selectVersion(reference, versions[reference.platform])
            return Result.isSuccess(selected) ? [`${reference.platform}/${selected.success}`] : []
          })
        const reaches = (from: string, target: string): boolean => {
          const seen = new Set<string>()
          const stack = [...parents(from)]
          for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
            if (next === target) return true
            if (!seen.has(next)) {
              seen.add(next)
              stack.push(...parents(next))
            }
          }
          return false
        }

        const listed = plan(saved(store.saved), graphOf(versions, dependencies))
        expect(new Set(listed).size).toBe(listed.length)
        const expected = Object.keys(dependencies).filter((key) => key !== store.saved && reaches(key, store.saved))
        expect([...listed].sort()).toEqual(expected.sort())
        listed.forEach((key, index) => {
          for (const parent of parents(key)) {
            const position = listed.indexOf(parent)
            // Only a cycle through both may put a parent later.
            if (position > index) expect(reaches(parent, key)).toBe(true)
          }
        })
      }),
      { numRuns: 500 },
    )
  })
})
