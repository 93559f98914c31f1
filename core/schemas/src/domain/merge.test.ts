import { deepFreeze, jsonObjectArbitrary, objectFromEntries } from "@coffer/test-kit/schemaArbitraries"
import type * as Schema from "effect/Schema"
import fc from "fast-check"
import { afterEach, describe, expect, it } from "vitest"
import { cloneJson, deepMerge, mergeAll } from "./merge.js"

const isObject = (value: unknown): value is Schema.JsonObject =>
  value !== null && typeof value === "object" && !Array.isArray(value)

/**
 * An independent statement of the merge rule over entry lists, printed as JSON text, so that the comparison also
 * covers the keys an object literal would mishandle (`__proto__`) and the order the keys print in.
 */
const referenceMerge = (base: Schema.JsonObject, override: Schema.JsonObject, top = true): string => {
  const entries = new Map<string, Schema.Json | string>()
  for (const [key, value] of Object.entries(base)) entries.set(key, JSON.stringify(value))
  for (const [key, value] of Object.entries(override)) {
    const previous = Object.hasOwn(base, key) ? base[key] : undefined
    entries.set(
      key,
      isObject(previous) && isObject(value) ? referenceMerge(previous, value, false) : JSON.stringify(value),
    )
  }
  if (top) entries.delete("@extends")
  return `{${[...entries].map(([key, text]) => `${JSON.stringify(key)}:${text}`).join(",")}}`
}

const withoutExtends = (object: Schema.JsonObject): Schema.JsonObject =>
  objectFromEntries(Object.entries(object).filter(([key]) => key !== "@extends"))

/** Every path to a value that is not an object (arrays and `null` included), with that value. */
const leaves = (object: Schema.JsonObject, prefix: ReadonlyArray<string> = []): Array<[Array<string>, Schema.Json]> =>
  Object.entries(object).flatMap(
    ([key, value]): Array<[Array<string>, Schema.Json]> =>
      isObject(value) && Object.keys(value).length > 0 ? leaves(value, [...prefix, key]) : [[[...prefix, key], value]],
  )

const at = (value: Schema.Json | undefined, path: ReadonlyArray<string>): Schema.Json | undefined =>
  path.reduce<Schema.Json | undefined>(
    (current, key) => (isObject(current) && Object.hasOwn(current, key) ? current[key] : undefined),
    value,
  )

afterEach(() => {
  // A merge that wrote through a `__proto__` key would have polluted every object.
  expect(Object.prototype).not.toHaveProperty("polluted")
  expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain("polluted")
})

describe("deepMerge", () => {
  it("merges objects key by key and lets arrays, scalars and null replace", () => {
    const base = { a: { x: 1, y: { deep: true } }, list: [1, 2], keep: "base", gone: { z: 1 }, scalar: 1 }
    const override = { a: { y: { other: 2 } }, list: [3], gone: null, scalar: { now: "object" }, added: false }
    expect(deepMerge(base, override)).toEqual({
      a: { x: 1, y: { deep: true, other: 2 } },
      list: [3],
      keep: "base",
      gone: null,
      scalar: { now: "object" },
      added: false,
    })
  })

  it("replaces an object with an array and an array with an object, never combining them", () => {
    expect(deepMerge({ a: { "0": "x" } }, { a: ["y"] })).toEqual({ a: ["y"] })
    expect(deepMerge({ a: ["y"] }, { a: { "0": "x" } })).toEqual({ a: { "0": "x" } })
  })

  it("drops the top-level @extends of both sides and keeps a nested one as data", () => {
    const output = deepMerge({ "@extends": "a", x: { "@extends": "kept" } }, { "@extends": ["b"], y: 1 })
    expect(output).toEqual({ x: { "@extends": "kept" }, y: 1 })
    expect(Object.hasOwn(output, "@extends")).toBe(false)
  })

  it("keeps base keys in place and appends new ones, so saved outputs print stably", () => {
    expect(Object.keys(deepMerge({ b: 1, a: 1 }, { c: 1, a: 2 }))).toEqual(["b", "a", "c"])
  })

  it("treats __proto__, constructor and prototype as ordinary keys", () => {
    const base = JSON.parse('{"__proto__": {"polluted": "base", "kept": 1}, "constructor": {"prototype": {"a": 1}}}')
    const override = JSON.parse(
      '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "prototype": null}',
    )
    const output = deepMerge(base, override)
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype)
    expect(Object.hasOwn(output, "__proto__")).toBe(true)
    expect(JSON.stringify(output)).toBe(
      '{"__proto__":{"polluted":true,"kept":1},"constructor":{"prototype":{"a":1,"polluted":true}},"prototype":null}',
    )
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(JSON.parse(JSON.stringify(output))).toEqual(output)
  })

  it("does not pollute when only the override carries __proto__", () => {
    const output = deepMerge({}, JSON.parse('{"__proto__": {"polluted": true}}'))
    expect(Object.keys(output)).toEqual(["__proto__"])
    expect((output as Record<string, unknown>).polluted).toBeUndefined()
  })

  it("shares nothing with its inputs", () => {
    const base = { a: { list: [{ x: 1 }] }, b: { c: 1 } }
    const override = { b: { d: [2] } }
    const output = deepMerge(base, override) as { a: { list: Array<{ x: number }> }; b: { d: Array<number> } }
    output.a.list[0]!.x = 99
    output.b.d.push(3)
    expect(base).toEqual({ a: { list: [{ x: 1 }] }, b: { c: 1 } })
    expect(override).toEqual({ b: { d: [2] } })
  })

  it("is not associative, which is why parents merge in a fixed order", () => {
    const a = { k: { x: 1 } }
    const b = { k: 0 }
    const c = { k: { y: 2 } }
    expect(deepMerge(deepMerge(a, b), c)).toEqual({ k: { y: 2 } })
    expect(deepMerge(a, deepMerge(b, c))).toEqual({ k: { x: 1, y: 2 } })
  })

  it("matches the reference rule key for key, dangerous keys included", () => {
    fc.assert(
      fc.property(jsonObjectArbitrary, jsonObjectArbitrary, (base, override) => {
        expect(JSON.stringify(deepMerge(base, override))).toBe(referenceMerge(base, override))
      }),
    )
  })

  it("never modifies its inputs and never lets @extends into the output", () => {
    fc.assert(
      fc.property(jsonObjectArbitrary, jsonObjectArbitrary, (base, override) => {
        const before = [JSON.stringify(base), JSON.stringify(override)]
        const output = deepMerge(deepFreeze(base), deepFreeze(override))
        expect([JSON.stringify(base), JSON.stringify(override)]).toEqual(before)
        expect(Object.hasOwn(output, "@extends")).toBe(false)
      }),
    )
  })

  it("lets every value of the override win at its path", () => {
    fc.assert(
      fc.property(jsonObjectArbitrary, jsonObjectArbitrary, (base, override) => {
        const output = deepMerge(base, override)
        // An empty object overrides nothing: it merges into whatever the base holds there.
        for (const [path, value] of leaves(withoutExtends(override))) {
          if (!isObject(value)) expect(at(output, path)).toEqual(value)
        }
      }),
    )
  })

  it("keeps every base value the override does not reach", () => {
    fc.assert(
      fc.property(jsonObjectArbitrary, jsonObjectArbitrary, (base, override) => {
        const output = deepMerge(base, override)
        for (const [path, value] of leaves(withoutExtends(base))) {
          // A value (null included) somewhere along the path replaces everything below it.
          const overridden = path.some((_, index) => {
            const along = at(override, path.slice(0, index + 1))
            return along !== undefined && !isObject(along)
          })
          const reached = at(override, path) !== undefined || overridden
          if (!reached) expect(at(output, path)).toEqual(value)
        }
      }),
    )
  })

  it("has the empty object as identity on both sides", () => {
    fc.assert(
      fc.property(jsonObjectArbitrary, (object) => {
        const expected = JSON.stringify(withoutExtends(object))
        expect(JSON.stringify(deepMerge({}, object))).toBe(expected)
        expect(JSON.stringify(deepMerge(object, {}))).toBe(expected)
      }),
    )
  })

  it("is associative when no key is an object on one side and a value on another", () => {
    // Keys named "o…" always hold objects and every other key a plain value, so no path changes kind.
    const consistent = fc.letrec<{ object: Schema.JsonObject }>((tie) => ({
      object: fc.oneof(
        { maxDepth: 3 },
        fc.constant({}),
        fc
          .array(
            fc.oneof(
              fc.tuple(fc.constantFrom("o1", "o2"), tie("object")),
              fc.tuple(fc.constantFrom("v1", "v2", "__proto__"), fc.oneof(fc.integer(), fc.constant(null))),
            ),
            { maxLength: 4 },
          )
          .map(objectFromEntries),
      ),
    })).object
    fc.assert(
      fc.property(consistent, consistent, consistent, (a, b, c) => {
        expect(JSON.stringify(deepMerge(deepMerge(a, b), c))).toBe(JSON.stringify(deepMerge(a, deepMerge(b, c))))
      }),
    )
  })
})

describe("mergeAll", () => {
  it("merges parents left to right, then the child on top", () => {
    const output = mergeAll(
      [
        { a: 1, b: 1, nested: { p: 1 } },
        { b: 2, c: 2, nested: { q: 2 } },
      ],
      { c: 3, "@extends": ["p1", "p2"] },
    )
    expect(output).toEqual({ a: 1, b: 2, nested: { p: 1, q: 2 }, c: 3 })
  })

  it("of no parents is the child without @extends", () => {
    expect(mergeAll([], { "@extends": [], a: 1 })).toEqual({ a: 1 })
  })

  it("equals folding deepMerge over the parents and then the child", () => {
    fc.assert(
      fc.property(fc.array(jsonObjectArbitrary, { maxLength: 4 }), jsonObjectArbitrary, (parents, child) => {
        const folded = [...parents, child].reduce<Schema.JsonObject>((acc, next) => deepMerge(acc, next), {})
        expect(JSON.stringify(mergeAll(parents, child))).toBe(JSON.stringify(folded))
        if (parents.length > 0) {
          const last = parents.at(-1)!
          const incremental = deepMerge(mergeAll(parents.slice(0, -1), last), child)
          expect(JSON.stringify(mergeAll(parents, child))).toBe(JSON.stringify(incremental))
        }
      }),
    )
  })
})

describe("cloneJson", () => {
  it("copies deeply, dangerous keys included", () => {
    fc.assert(
      fc.property(jsonObjectArbitrary, (object) => {
        const copy = cloneJson(object)
        expect(copy).not.toBe(object)
        expect(JSON.stringify(copy)).toBe(JSON.stringify(object))
      }),
    )
  })
})
