/**
 * The depth scanner that guards `JSON.parse` (`nestingExceeds`), checked against the depth of the parsed value
 * for generated documents, including strings full of brackets, quotes and escapes, and never throwing on junk.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nestingExceeds } from "./jsonBody.js"

/** The nesting depth of arrays and objects in a parsed value: a scalar is 0, `[]` is 1. */
const depthOf = (value: unknown): number =>
  value !== null && typeof value === "object"
    ? 1 + Math.max(0, ...Object.values(value as Record<string, unknown>).map(depthOf))
    : 0

const bracketText = fc.string({ unit: fc.constantFrom(...'[]{}"\\:, a1\u2028') })

/** A value of a chosen depth: `levels` of arrays and objects around a leaf, with brackets inside strings. */
const nested = fc
  .tuple(
    fc.array(fc.tuple(fc.boolean(), bracketText), { maxLength: 12 }),
    fc.oneof(bracketText, fc.jsonValue({ maxDepth: 2 })),
  )
  .map(([levels, leaf]) =>
    levels.reduce<unknown>((inner, [asArray, text]) => (asArray ? [inner, text] : { [text]: inner }), leaf),
  )

describe("nestingExceeds", () => {
  it("agrees with the depth of the parsed value for any document and any limit", () => {
    fc.assert(
      fc.property(fc.oneof(nested, fc.jsonValue({ maxDepth: 6 })), fc.integer({ min: 0, max: 14 }), (value, max) => {
        for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
          expect(nestingExceeds(text, max)).toBe(depthOf(JSON.parse(text)) > max)
        }
      }),
      { numRuns: 2000 },
    )
  })

  it("answers for any text, JSON or not, without throwing", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), bracketText, fc.string({ unit: "binary" })), fc.nat(5), (text, max) => {
        expect(typeof nestingExceeds(text, max)).toBe("boolean")
      }),
      { numRuns: 500 },
    )
  })

  it("counts a document just over the limit, and not one at it", () => {
    expect(nestingExceeds(`${"[".repeat(100)}${"]".repeat(100)}`, 100)).toBe(false)
    expect(nestingExceeds(`${"[".repeat(101)}${"]".repeat(101)}`, 100)).toBe(true)
    expect(nestingExceeds(`["${"[".repeat(500)}"]`, 100)).toBe(false)
  })
})
