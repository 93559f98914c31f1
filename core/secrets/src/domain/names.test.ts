import * as Result from "effect/Result"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  DEFAULT_ENVIRONMENTS,
  InvalidName,
  NAME_PATTERN,
  parseEnvironmentName,
  parseSecretKey,
  parseSecretValue,
  SECRET_VALUE_MAX_BYTES,
  utf8ByteLength,
  ValueTooLarge,
} from "./names.js"

/** The error of a result that must have failed; a success throws, failing the test. */
const failureOf = <A, E>(result: Result.Result<A, E>): E => Result.getOrThrow(Result.flip(result))

interface NameRule {
  readonly label: string
  readonly field: InvalidName["field"]
  readonly parse: (input: string) => Result.Result<string, InvalidName>
  readonly max: number
}

describe.each<NameRule>([
  { label: "Environment name", field: "environmentName", parse: parseEnvironmentName, max: 64 },
  { label: "Secret key", field: "secretKey", parse: parseSecretKey, max: 256 },
])("$label", ({ label, field, parse, max }) => {
  it("accepts letters, digits, _, - and . up to the length limit", () => {
    for (const name of [
      "a",
      "Z",
      "0",
      "_",
      "-",
      "production",
      "DATABASE_URL",
      "eu-west-1.prod",
      ".env",
      "...",
      "a".repeat(max),
    ])
      expect(Result.getOrThrow(parse(name))).toBe(name)
  })

  it("rejects the empty name", () => {
    const error = failureOf(parse(""))
    expect(error).toBeInstanceOf(InvalidName)
    expect(error).toMatchObject({ _tag: "InvalidName", field, message: `${label} must not be empty` })
  })

  it("rejects a name over the limit, saying the limit and the length", () => {
    expect(failureOf(parse("a".repeat(max + 1))).message).toBe(
      `${label} must be at most ${max} characters, got ${max + 1}`,
    )
  })

  it("rejects characters outside the alphabet, quoting the first one", () => {
    const cases = [
      ["with space", " "],
      ["a/b", "/"],
      ["ümlaut", "ü"],
      ["key🔑", "🔑"],
      ["tab\there", "\t"],
      ["new\nline", "\n"],
      ["a:b", ":"],
      ["a@1", "@"],
    ] as const
    for (const [name, found] of cases) {
      const error = failureOf(parse(name))
      expect(error.field).toBe(field)
      expect(error.message).toBe(
        `${label} may contain only letters A-Z and a-z, digits, "_", "-" and "."; found ${JSON.stringify(found)}`,
      )
    }
  })

  it('rejects "." and "..", which URL normalisation would fold away', () => {
    for (const name of [".", ".."]) expect(failureOf(parse(name)).message).toBe(`${label} must not be "." or ".."`)
  })

  it("is case-sensitive and changes nothing it accepts", () => {
    expect(Result.getOrThrow(parse("Prod"))).toBe("Prod")
    expect(Result.getOrThrow(parse("prod"))).toBe("prod")
  })

  it("takes exactly the names NAME_PATTERN and the length limit admit (what the OpenAPI document states)", () => {
    const agrees = (name: string) => {
      expect(NAME_PATTERN.test(name) && name.length <= max, JSON.stringify(name)).toBe(Result.isSuccess(parse(name)))
    }
    for (const name of ["", ".", "..", "...", ".env", "a.", "a b", "x".repeat(max), "x".repeat(max + 1)]) agrees(name)
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(..."aZ09_.-é /\n"), maxLength: 8 }), agrees), {
      numRuns: 2000,
    })
  })
})

describe("DEFAULT_ENVIRONMENTS", () => {
  it("are the seed's three, each a valid environment name", () => {
    expect(DEFAULT_ENVIRONMENTS).toEqual(["development", "staging", "production"])
    for (const name of DEFAULT_ENVIRONMENTS) expect(Result.isSuccess(parseEnvironmentName(name))).toBe(true)
  })
})

describe("parseSecretValue", () => {
  it("accepts any string up to 64 KiB of UTF-8, the empty string included", () => {
    for (const value of [
      "",
      " ",
      "\0",
      "a".repeat(SECRET_VALUE_MAX_BYTES),
      "é".repeat(32 * 1024),
      "🔑".repeat(16 * 1024),
    ])
      expect(Result.getOrThrow(parseSecretValue(value))).toBe(value)
  })

  it("counts bytes, not characters", () => {
    const cases = [
      ["a".repeat(SECRET_VALUE_MAX_BYTES + 1), SECRET_VALUE_MAX_BYTES + 1],
      ["é".repeat(32 * 1024 + 1), SECRET_VALUE_MAX_BYTES + 2],
      [`${"🔑".repeat(16 * 1024)}x`, SECRET_VALUE_MAX_BYTES + 1],
    ] as const
    for (const [value, size] of cases) {
      const error = failureOf(parseSecretValue(value))
      expect(error).toBeInstanceOf(ValueTooLarge)
      expect(error).toMatchObject({
        _tag: "ValueTooLarge",
        size,
        limit: SECRET_VALUE_MAX_BYTES,
        message: `Secret value is ${size} bytes; at most 65536 bytes (64 KiB) are allowed`,
      })
    }
  })

  it("never puts the value in the error", () => {
    const error = failureOf(parseSecretValue(`s3cr3t-${"x".repeat(SECRET_VALUE_MAX_BYTES)}`))
    expect(JSON.stringify(error)).not.toContain("s3cr3t")
    expect(String(error)).not.toContain("s3cr3t")
  })
})

describe("utf8ByteLength", () => {
  it("agrees with TextEncoder on any string, unpaired surrogates included", () => {
    const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit))
    const text = fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: codeUnit }))
    const encoder = new TextEncoder()
    fc.assert(
      fc.property(text, (value) => {
        expect(utf8ByteLength(value)).toBe(encoder.encode(value).length)
      }),
      { numRuns: 2000 },
    )
  })

  it("counts 1 to 4 bytes per character", () => {
    expect([
      utf8ByteLength(""),
      utf8ByteLength("a"),
      utf8ByteLength("é"),
      utf8ByteLength("秘"),
      utf8ByteLength("🔑"),
    ]).toEqual([0, 1, 2, 3, 4])
    expect(utf8ByteLength("\ud800")).toBe(3)
    expect(utf8ByteLength("\udc00\ud800")).toBe(6)
  })
})
