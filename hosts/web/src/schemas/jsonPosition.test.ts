import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { jsonErrorOffset, positionAt } from "./jsonPosition.js"

const parses = (text: string) => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

describe("jsonErrorOffset", () => {
  it("agrees with JSON.parse on what is JSON", () => {
    const near = fc
      .tuple(fc.json(), fc.nat(40), fc.constantFrom("", "}", "]", ",", ":", '"', "x", " ", "\n", "tru", "-", "01"))
      .map(([json, cut, junk]) => {
        const at = Math.min(cut, json.length)
        return json.slice(0, at) + junk + json.slice(at)
      })
    fc.assert(
      fc.property(fc.oneof(fc.json(), near, fc.string({ maxLength: 8 })), (text) => {
        expect(jsonErrorOffset(text) === undefined).toBe(parses(text))
      }),
      { numRuns: 5000 },
    )
  })

  it("points at the first character that breaks the grammar", () => {
    const text = '{\n  "a": 1,\n  "b": }'
    expect(positionAt(text, jsonErrorOffset(text)!)).toEqual({ line: 3, column: 8 })
    expect(jsonErrorOffset('{"a": [1, 2,]}')).toBe(12)
    expect(jsonErrorOffset('{"a": 1')).toBe(7)
    expect(jsonErrorOffset("[1] 2")).toBe(4)
    // A raw control character inside a string is not JSON; escaped it is.
    expect(jsonErrorOffset(`"a${String.fromCharCode(10)}b"`)).toBe(0)
    expect(jsonErrorOffset(String.raw`"a\nb\u0001"`)).toBeUndefined()
    expect(jsonErrorOffset(`${"[".repeat(100_000)}${"]".repeat(100_000)}`)).toBeUndefined()
  })
})
