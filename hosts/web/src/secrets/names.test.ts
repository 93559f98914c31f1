import fc from "fast-check"
import { describe, expect, it } from "vitest"
// The service's own rules, by path: the forms must say what a request would answer, string for string.
import { parseEnvironmentName, parseSecretKey } from "../../../../core/secrets/src/domain/names.js"
import { nameProblem } from "./names.js"

const serviceMessage = (
  parse: (input: string) => ReturnType<typeof parseSecretKey> | ReturnType<typeof parseEnvironmentName>,
  input: string,
): string | undefined => {
  const result = parse(input)
  return result._tag === "Failure" ? result.failure.message : undefined
}

/** Names near the rules: most valid, many broken in one of the ways they name. */
const nearName = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_.-]{0,270}$/),
  fc.constantFrom(
    "",
    ".",
    "..",
    "...",
    "a b",
    " A",
    "A=B",
    "é",
    "😀x",
    "a".repeat(64),
    "a".repeat(65),
    "a".repeat(257),
  ),
  fc.string({ maxLength: 10 }),
  fc.string({ unit: "grapheme", maxLength: 10 }),
)

describe("nameProblem", () => {
  it("agrees with the service on every environment name, message for message", () => {
    fc.assert(
      fc.property(nearName, (name) => {
        expect(nameProblem("environmentName", name)).toBe(serviceMessage(parseEnvironmentName, name))
      }),
      { numRuns: 3000 },
    )
  })

  it("agrees with the service on every secret key, message for message", () => {
    fc.assert(
      fc.property(nearName, (key) => {
        expect(nameProblem("secretKey", key)).toBe(serviceMessage(parseSecretKey, key))
      }),
      { numRuns: 3000 },
    )
  })

  it("says what is wrong with a name the service refuses", () => {
    expect(nameProblem("environmentName", "qa env")).toBe(
      'Environment name may contain only letters A-Z and a-z, digits, "_", "-" and "."; found " "',
    )
    expect(nameProblem("secretKey", "..")).toBe('Secret key must not be "." or ".."')
    // Keys named like the exports are keys like any other (the clients read them through their history).
    expect(nameProblem("secretKey", "json")).toBeUndefined()
    expect(nameProblem("secretKey", ".env")).toBeUndefined()
    expect(nameProblem("environmentName", "qa-1")).toBeUndefined()
  })
})
