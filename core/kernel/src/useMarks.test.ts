import { describe, expect, it } from "vitest"
import { makeUseMarks } from "./useMarks.js"

describe("makeUseMarks", () => {
  it("answers true for the first use of an id in a period only, and again once the period has passed", () => {
    const firstUse = makeUseMarks(60_000)
    expect(firstUse("a", 0)).toBe(true)
    expect(firstUse("a", 59_999)).toBe(false)
    expect(firstUse("b", 59_999)).toBe(true)
    expect(firstUse("a", 60_000)).toBe(true)
    expect(firstUse("a", 60_001)).toBe(false)
  })
})
