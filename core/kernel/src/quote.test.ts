import { describe, expect, it } from "vitest"
import { QUOTED_MAX, quote } from "./quote.js"

describe("quote", () => {
  it("quotes a value as a JSON string, escapes included", () => {
    expect(quote("ios")).toBe('"ios"')
    expect(quote('a"b\u0000')).toBe('"a\\"b\\u0000"')
    expect(quote("x".repeat(QUOTED_MAX))).toBe(JSON.stringify("x".repeat(QUOTED_MAX)))
  })

  it("keeps the first characters of a long value and says how long it was", () => {
    expect(quote("x".repeat(70_000))).toBe(`${JSON.stringify("x".repeat(QUOTED_MAX))}… (70000 characters)`)
  })

  it("never cuts a character in half", () => {
    const value = `${"x".repeat(QUOTED_MAX - 1)}🔑${"x".repeat(10)}`
    expect(quote(value)).toBe(`${JSON.stringify("x".repeat(QUOTED_MAX - 1))}… (${value.length} characters)`)
  })
})
