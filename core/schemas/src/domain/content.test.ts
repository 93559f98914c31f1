import * as Result from "effect/Result"
import { describe, expect, it } from "vitest"
import { validateContent } from "./content.js"
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
