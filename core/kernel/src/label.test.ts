import * as Result from "effect/Result"
import { describe, expect, it } from "vitest"
import { parseLabel } from "./label.js"

const parse = (input: string) => parseLabel("Name", 10, input)

describe("parseLabel", () => {
  it("keeps what people type, trimmed, in any script", () => {
    expect(parse("  Payments  ")).toEqual(Result.succeed("Payments"))
    expect(parse("Überweisen")).toEqual(Result.succeed("Überweisen"))
    expect(parse("東京 🚀 api")).toEqual(Result.succeed("東京 🚀 api"))
  })

  it("counts characters, not UTF-16 units", () => {
    expect(parse("🚀".repeat(10))).toEqual(Result.succeed("🚀".repeat(10)))
    expect(parse("🚀".repeat(11))).toEqual(Result.fail("Name must be at most 10 characters, got 11"))
  })

  it("refuses empty and blank labels", () => {
    expect(parse("")).toEqual(Result.fail("Name must not be empty"))
    expect(parse(" \t ")).toEqual(Result.fail("Name must not be empty"))
  })

  it.each([
    ["a NUL", "a\u0000b", "U+0000"],
    ["a line break", "a\nb", "U+000A"],
    ["DEL", "a\u007fb", "U+007F"],
    ["a right-to-left override", "inv\u202Efdp", "U+202E"],
    ["a bidirectional isolate", "a\u2066b", "U+2066"],
    ["a zero-width space", "a\u200Bb", "U+200B"],
    ["a zero-width joiner", "a\u200Db", "U+200D"],
    ["a byte-order mark", "a\uFEFFb", "U+FEFF"],
    ["a soft hyphen", "a\u00ADb", "U+00AD"],
    ["an unpaired surrogate", "a\uD800b", "U+D800"],
  ])("refuses %s, naming its code point", (_, input, codePoint) => {
    expect(parse(input)).toEqual(
      Result.fail(`Name must not contain control, formatting or invisible characters; found ${codePoint}`),
    )
  })
})
