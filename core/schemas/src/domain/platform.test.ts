import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isValidPlatformName, MAX_PLATFORM_NAME_LENGTH, PLATFORM_NAME_PATTERN } from "./platform.js"

describe("PLATFORM_NAME_PATTERN (what the OpenAPI document states)", () => {
  it("admits exactly the names validatePlatformName takes, up to 64 characters", () => {
    const agrees = (name: string) => {
      expect(PLATFORM_NAME_PATTERN.test(name) && name.length <= MAX_PLATFORM_NAME_LENGTH, JSON.stringify(name)).toBe(
        isValidPlatformName(name),
      )
    }
    for (const name of ["", "schemas", "auth", "schemas2", "Auth", "_ui", ".a", "a.", "x".repeat(64), "x".repeat(65)])
      agrees(name)
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(..."aSZ09_.-é /"), maxLength: 8 }), agrees), {
      numRuns: 2000,
    })
  })
})
