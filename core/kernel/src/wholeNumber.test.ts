import * as Result from "effect/Result"
import { describe, expect, it } from "vitest"
import { parseWholeNumber } from "./wholeNumber.js"

const parse = (text: string | undefined) => parseWholeNumber("limit", text, { min: 0, max: 500 })
const refused = Result.fail(
  expect.objectContaining({ _tag: "BadRequest", message: "limit must be a whole number from 0 to 500" }),
)

describe("parseWholeNumber", () => {
  it("reads plainly written numbers within the range, and nothing as absent", () => {
    expect(parse("0")).toEqual(Result.succeed(0))
    expect(parse("7")).toEqual(Result.succeed(7))
    expect(parse("500")).toEqual(Result.succeed(500))
    expect(parse(undefined)).toEqual(Result.succeed(undefined))
  })

  it.each(["00010", "010", "00", "-0", "+5", "-1", " 5", "5 ", "1e2", "1.0", "0x10", "10abc", "", "٣", "501"])(
    "refuses %j with 400 naming the parameter and its range",
    (text) => {
      expect(parse(text)).toEqual(refused)
    },
  )

  it("takes every safe integer, and refuses what is past the range however long", () => {
    const safe = { min: 1, max: Number.MAX_SAFE_INTEGER }
    expect(parseWholeNumber("before", String(Number.MAX_SAFE_INTEGER), safe)).toEqual(
      Result.succeed(Number.MAX_SAFE_INTEGER),
    )
    expect(Result.isFailure(parseWholeNumber("before", "9007199254740992", safe))).toBe(true)
    expect(Result.isFailure(parseWholeNumber("before", "9".repeat(400), safe))).toBe(true)
  })
})
