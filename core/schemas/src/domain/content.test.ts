import * as Result from "effect/Result"
import { describe, expect, it } from "vitest"
import { checkWellFormed, validateContent } from "./content.js"
import { InvalidSchemaContent } from "./errors.js"

describe("validateContent", () => {
  it.each([
    {},
    { a: 1, b: [true, null, "x", { c: -2.5 }] },
    JSON.parse('{"__proto__": {"x": 1}}'),
    Object.create(null),
  ])("accepts the plain JSON object %j as is", (content) => {
    const result = validateContent(content)
    expect(Result.isSuccess(result) && result.success).toBe(content)
  })

  it.each([
    [null, "got null"],
    [undefined, "got nothing"],
    [[], "got an array"],
    [[{ a: 1 }], "got an array"],
    ["{}", "got a string"],
    [42, "got a number"],
    [true, "got a boolean"],
    [new Date(0), "got an instance of a class"],
    [new Map(), "got an instance of a class"],
    [{ a: undefined }, "got an object holding a value that is not JSON"],
    [{ a: { b: Number.NaN } }, "got an object holding a value that is not JSON"],
    [{ a: [new Date(0)] }, "got an object holding a value that is not JSON"],
    [{ a: () => 1 }, "got an object holding a value that is not JSON"],
  ])("rejects %o (%s)", (content, reason) => {
    const result = validateContent(content)
    const error = Result.isFailure(result) ? result.failure : undefined
    expect(error).toBeInstanceOf(InvalidSchemaContent)
    expect(error?.message).toBe(`Invalid schema content: content must be a plain JSON object, ${reason}`)
  })

  it("names the schema when it is a stored one", () => {
    const result = validateContent([], "ios/1.0.0")
    expect(Result.isFailure(result) && result.failure.message).toBe(
      "Invalid schema content in ios/1.0.0: content must be a plain JSON object, got an array",
    )
  })
})

describe("checkWellFormed", () => {
  const reason = (content: Record<string, unknown>) => {
    const result = checkWellFormed(content as never)
    return Result.isFailure(result) ? result.failure.message : "well-formed"
  }

  it("takes any well-formed text, characters outside the Basic Multilingual Plane (a surrogate pair) included", () => {
    expect(reason({ "🚀 key": "😀", "\uFFFD": ["東京", { "": "" }], n: 1, b: null })).toBe("well-formed")
  })

  it.each([
    [{ v: "a\uD800b" }, 'the string at ["v"] holds an unpaired surrogate (U+D800)'],
    [{ v: "\uDC00" }, 'the string at ["v"] holds an unpaired surrogate (U+DC00)'],
    [{ v: "\uDE00\uD83D" }, 'the string at ["v"] holds an unpaired surrogate (U+DE00)'],
    [{ a: [1, { "k\uDBFF": 2 }] }, 'the key at ["a"][1]["k\\udbff"] holds an unpaired surrogate (U+DBFF)'],
    [{ "@extends": ["base", "x\uD800"] }, 'the string at ["@extends"][1] holds an unpaired surrogate (U+D800)'],
  ])("refuses %j, naming where the surrogate is without sending it back", (content, where) => {
    const message = reason(content)
    expect(message).toBe(`Invalid schema content: ${where}; content must be well-formed Unicode`)
    expect(message).not.toMatch(/\p{Cs}/u)
  })

  it("names only the innermost keys of a deep path", () => {
    let content: Record<string, unknown> = { leaf: "\uD800" }
    for (let depth = 0; depth < 20; depth++) content = { [`k${depth}`]: content }
    expect(reason(content)).toMatch(
      /^Invalid schema content: the string at …\["k6"\]\["k5"\].*\["k0"\]\["leaf"\] holds/,
    )
  })
})
