/** The import parser: what the service exports reads back exactly, and every problem is named. */
import { toDotenv, toJsonExport } from "@coffer/secrets"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { classify, type Parsed, parseSecretsFile } from "./envFile.js"

const parsed = (text: string) => {
  const result = parseSecretsFile(text)
  if (typeof result === "string") throw new Error(result)
  return result as Parsed
}

// Any key the service accepts: the export writes every one, `-`, `.` and a leading digit included.
const secretKey = fc.stringMatching(/^[A-Za-z0-9_.-]{1,20}$/).filter((key) => key !== "." && key !== "..")
const entries = fc.uniqueArray(fc.record({ key: secretKey, value: fc.string({ unit: "binary", maxLength: 40 }) }), {
  selector: (entry) => entry.key,
  maxLength: 12,
})

describe("parseSecretsFile", () => {
  it("reads back every .env the service exports", () => {
    fc.assert(
      fc.property(entries, (list) => {
        const result = parsed(toDotenv(list))
        expect(result.invalid).toEqual([])
        expect(result.entries.map(({ key, value }) => ({ key, value }))).toEqual(list)
      }),
      { numRuns: 500 },
    )
  })

  // Found by the property above: the first line of a quoted value lost its trailing whitespace.
  it("keeps whitespace that ends the first line of a quoted value running over several lines", () => {
    const list = [
      { key: "A", value: "\t\n" },
      { key: "B", value: "x  \ny" },
      { key: "C", value: 'say "hi" \t\nthen $HOME' },
    ]
    expect(parsed(toDotenv(list)).entries.map(({ key, value }) => ({ key, value }))).toEqual(list)
  })

  it("reads back every JSON export, keys such as __proto__ included", () => {
    const list = [
      { key: "__proto__", value: "x" },
      { key: "A.B-c", value: "multi\nline 'q' \"d\"" },
      { key: "EMPTY", value: "" },
    ]
    const result = parsed(JSON.stringify(toJsonExport(list)))
    expect(result.format).toBe("json")
    expect(result.entries.map(({ key, value }) => ({ key, value }))).toEqual(list)
  })

  it("reads the dotenv of other tools: export, comments, inline comments, spaces, \\n in double quotes", () => {
    const result = parsed(
      [
        "# a comment",
        "export API_URL = https://api.example.com # where",
        'GREETING="hello\\nworld"',
        "SINGLE='a # not a comment'",
        "MULTI='line one",
        "line two'",
        "",
      ].join("\n"),
    )
    expect(result.entries.map(({ key, value }) => [key, value])).toEqual([
      ["API_URL", "https://api.example.com"],
      ["GREETING", "hello\nworld"],
      ["SINGLE", "a # not a comment"],
      ["MULTI", "line one\nline two"],
    ])
  })

  it("reads a comment right after = as an empty value, as `coffer push` does, and a # inside a word as text", () => {
    const result = parsed(["API_TOKEN= # fill me in", "TABBED=\t# set me", "HASH=#not-a-comment"].join("\n"))
    expect(result.entries.map(({ key, value }) => [key, value])).toEqual([
      ["API_TOKEN", ""],
      ["TABBED", ""],
      ["HASH", "#not-a-comment"],
    ])
    expect(result.invalid).toEqual([])
  })

  it("reads a file saved with CR line ends (classic Mac OS) line by line, as the command line does", () => {
    const result = parsed("A=1\rB='two\rlines'\r\rnot a line\rC=3\r")
    expect(result.entries.map(({ key, value, line }) => [key, value, line])).toEqual([
      ["A", "1", 1],
      ["B", "two\rlines", 2],
      ["C", "3", 6],
    ])
    expect(result.invalid.map((problem) => [problem.line, problem.reason])).toEqual([[5, "not a KEY=value line"]])
  })

  it("names duplicates (the last value wins) and invalid keys and lines", () => {
    const result = parsed(
      ["A=1", "bad key=2", "A=3", "no equals here", `${"K".repeat(257)}=4`, "..=5", "Q='open"].join("\n"),
    )
    expect(result.entries.map(({ key, value }) => [key, value])).toEqual([["A", "3"]])
    expect(result.duplicates).toEqual(["A"])
    expect(result.invalid.map((problem) => [problem.line, problem.reason])).toEqual([
      [2, "a key may hold only letters, digits, _, - and ."],
      [4, "not a KEY=value line"],
      [5, "the key is longer than 256 characters"],
      [6, 'Secret key must not be "." or ".."'],
      [7, "the single quote is never closed"],
    ])
  })

  it("explains JSON it cannot use: not JSON, not one object, null, arrays and objects, each named by its key", () => {
    expect(parseSecretsFile("{ nope")).toMatch(/^This is not valid JSON/)
    expect(parseSecretsFile('{"A": "1"} []')).toMatch(/^This is not valid JSON/)
    const result = parsed('{"A": null, "B": "ok", "C": [1, "]"], "D": {"e": "}"}}')
    expect(result.entries.map(({ key, value }) => [key, value])).toEqual([["B", "ok"]])
    expect(result.invalid).toEqual([
      { line: 1, key: "A", reason: 'the value is null: write "" for an empty value' },
      { line: 3, key: "C", reason: "the value is an array: a value is a string, a number or true/false" },
      { line: 4, key: "D", reason: "the value is an object: a value is a string, a number or true/false" },
    ])
  })

  it("imports JSON numbers and true/false as their text as written (`jsonImportMembers`), and marks them", () => {
    const result = parsed('{"PORT": 8080, "RATIO": 1.50, "DEBUG": true, "NAME": "8080"}')
    expect(result.entries.map(({ key, value, converted }) => [key, value, converted])).toEqual([
      ["PORT", "8080", "number"],
      ["RATIO", "1.50", "number"],
      ["DEBUG", "true", "boolean"],
      ["NAME", "8080", undefined],
    ])
    expect(result.invalid).toEqual([])
    // A number's text is what an unchanged value holds: nothing to import.
    expect(classify(result.entries, { PORT: "8080" })[0]!.change).toBe("unchanged")
  })

  it("reads JSON members in the order written, and names a key given twice (the last value is used)", () => {
    const result = parsed('{"B": "1", "2": "two", "A\\u0042": "x", "B": 3}')
    expect(result.entries.map(({ key, value }) => [key, value])).toEqual([
      ["2", "two"],
      ["AB", "x"],
      ["B", "3"],
    ])
    expect(result.duplicates).toEqual(["B"])
    expect(result.entries.map((entry) => entry.line)).toEqual([2, 3, 4])
  })

  it("agrees with JSON.parse on every object, however it is spaced", () => {
    const spacing = fc.constantFrom(undefined, 0, 1, 2, "\t")
    fc.assert(
      fc.property(fc.dictionary(secretKey, fc.jsonValue({ maxDepth: 2 })), spacing, (object, space) => {
        const text = JSON.stringify(object, null, space)
        const result = parsed(text)
        const parsedBack = JSON.parse(text) as Record<string, unknown>
        const expected = Object.keys(object).filter((key) => {
          const value = parsedBack[key]
          return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
        })
        expect(result.entries.map((entry) => entry.key).sort()).toEqual(expected.sort())
        for (const entry of result.entries) {
          const value = parsedBack[entry.key]
          if (typeof value === "string") expect([entry.value, entry.converted]).toEqual([value, undefined])
          else expect([JSON.parse(entry.value), entry.converted]).toEqual([value, typeof value])
        }
        expect(result.invalid.map((problem) => problem.key).sort()).toEqual(
          Object.keys(object)
            .filter((key) => !expected.includes(key))
            .sort(),
        )
      }),
      { numRuns: 300 },
    )
  })
})

describe("classify", () => {
  it("tells new, changed and unchanged keys apart", () => {
    const { entries: list } = parsed("A=1\nB=2\nC=3\n")
    expect(classify(list, { A: "1", B: "two" }).map((entry) => [entry.key, entry.change])).toEqual([
      ["A", "unchanged"],
      ["B", "changed"],
      ["C", "new"],
    ])
  })
})
