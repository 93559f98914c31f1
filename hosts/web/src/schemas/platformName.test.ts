import fc from "fast-check"
import { describe, expect, it } from "vitest"
// The service's own rule, by path: the form must say what a creation would answer, string for string.
import { validatePlatformName } from "../../../../core/schemas/src/domain/platform.js"
import { platformNameError } from "./platformName.js"

const serviceMessage = (name: string): string | undefined => {
  const result = validatePlatformName(name)
  return result._tag === "Failure" ? result.failure.message : undefined
}

/** Names near the rule: most valid, many broken in one of the ways it names. */
const nearName = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,70}$/),
  fc.constantFrom(
    "",
    "schemas",
    "auth",
    "_ui",
    "-x",
    ".x",
    "a b",
    " ios",
    "ios ",
    "ios/1",
    "é",
    "a".repeat(64),
    "a".repeat(65),
    // Quoted cut short past 80 characters, as the API quotes a long value.
    "a".repeat(200),
    `${"é".repeat(90)}`,
  ),
  fc.string({ maxLength: 10 }),
)

describe("platformNameError", () => {
  it("agrees with the service on every name, message for message", () => {
    fc.assert(
      fc.property(nearName, (name) => {
        expect(platformNameError(name)).toBe(serviceMessage(name))
      }),
      { numRuns: 2_000 },
    )
  })
})
