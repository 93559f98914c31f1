/**
 * The `.env` reader the web app's import and the command line's `push` share: everything the export writes reads
 * back exactly, shell words read as a shell reads them, the lines a shell would refuse as the `dotenv` package reads
 * them, and every line that cannot be read named while the rest is still read.
 */
import dotenv from "dotenv"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { toDotenv } from "./dotenv.js"
import { dotenvImport } from "./dotenvImport.js"

const pairs = (text: string) => dotenvImport(text).entries.map(({ key, value }) => ({ key, value }))

// Any key the service accepts: the export writes every one, `-`, `.` and a leading digit included.
const secretKey = fc.stringMatching(/^[A-Za-z0-9_.-]{1,20}$/).filter((key) => key !== "." && key !== "..")
const exported = fc.uniqueArray(fc.record({ key: secretKey, value: fc.string({ unit: "binary", maxLength: 40 }) }), {
  selector: (entry) => entry.key,
  maxLength: 12,
})

describe("dotenvImport", () => {
  it("reads back every .env the service exports, carriage returns, NUL and quotes included", () => {
    fc.assert(
      fc.property(exported, (entries) => {
        const read = dotenvImport(toDotenv(entries))
        expect(read.problems).toEqual([])
        expect(read.entries.map(({ key, value }) => ({ key, value }))).toEqual(entries)
      }),
      { numRuns: 1000 },
    )
  })

  it("reads back an export saved with CRLF line ends (Windows, git's autocrlf), line breaks in values too", () => {
    fc.assert(
      fc.property(exported, (entries) => {
        const plain = entries.filter(({ value }) => !value.includes("\r"))
        expect(pairs(toDotenv(plain).replaceAll("\n", "\r\n"))).toEqual(plain)
      }),
      { numRuns: 500 },
    )
    expect(pairs("A='line1\r\nline2'\r\nB=\"x\r\ny\"\r\n")).toEqual([
      { key: "A", value: "line1\nline2" },
      { key: "B", value: "x\ny" },
    ])
  })

  it("ends a line at a lone CR (a classic Mac OS file) and at CRLF once, line numbers included", () => {
    const read = dotenvImport("A=1\rexport B = two words # c\r\r# note\rnot a line\rC='x'\r")
    expect(read.entries).toEqual([
      { key: "A", value: "1", line: 1 },
      { key: "B", value: "two words", line: 2 },
      { key: "C", value: "x", line: 6 },
    ])
    expect(read.problems).toEqual([{ line: 5, key: undefined, reason: "not a KEY=value line" }])
    // Mixed line ends: each CRLF is one break, not a CR and then an LF.
    expect(dotenvImport("A=1\r\nB=2\rC=3\nD=4\r\n").entries).toEqual([
      { key: "A", value: "1", line: 1 },
      { key: "B", value: "2", line: 2 },
      { key: "C", value: "3", line: 3 },
      { key: "D", value: "4", line: 4 },
    ])
  })

  it("keeps a lone CR inside quotes as part of the value, numbering the lines after it as an editor does", () => {
    const read = dotenvImport("A='x\ry'\rB=\"p\rq\"\rC=3\rnope\n")
    expect(read.entries).toEqual([
      { key: "A", value: "x\ry", line: 1 },
      { key: "B", value: "p\rq", line: 3 },
      { key: "C", value: "3", line: 5 },
    ])
    expect(read.problems).toEqual([{ line: 6, key: undefined, reason: "not a KEY=value line" }])
  })

  it("reads one shell word: quoted and bare parts side by side, a bare backslash before a blank or quote only", () => {
    expect(pairs("A='x'\"y\"z\nB=a\\ b\nC=C:\\Users\\me\nD=\\'q\\' # note\nE=$HOME/x\nF='it'\\''s'\n")).toEqual([
      { key: "A", value: "xyz" },
      { key: "B", value: "a b" },
      { key: "C", value: "C:\\Users\\me" },
      { key: "D", value: "'q'" },
      { key: "E", value: "$HOME/x" },
      { key: "F", value: "it's" },
    ])
  })

  it("reads what a shell would refuse or run as the `dotenv` package reads it", () => {
    const file = [
      "# written for dotenv",
      "export API_URL = https://api.example.com # where",
      'PEM="-----BEGIN KEY-----\\nabc\\n-----END KEY-----"',
      "GREETING=hello big world   ",
      "API_TOKEN= # fill me in",
      "TABBED=\t# set me",
      "HASH=#not-a-comment",
      "SINGLE='a # not a comment'",
      "MULTI='line one",
      "line two'",
      'ESCAPED="a\\\\nb"',
      "",
    ].join("\n")
    const expected = [
      { key: "API_URL", value: "https://api.example.com" },
      { key: "PEM", value: "-----BEGIN KEY-----\nabc\n-----END KEY-----" },
      { key: "GREETING", value: "hello big world" },
      { key: "API_TOKEN", value: "" },
      { key: "TABBED", value: "" },
      { key: "HASH", value: "#not-a-comment" },
      { key: "SINGLE", value: "a # not a comment" },
      { key: "MULTI", value: "line one\nline two" },
      { key: "ESCAPED", value: "a\\nb" },
    ]
    expect(pairs(file)).toEqual(expected)
    // The `dotenv` package agrees on every line but two, where the shell's reading is kept: it reads a `#` starting
    // a word as a comment, and reads `\\n` as a backslash and a line break (it does not read `\\` as one backslash).
    const theirs = dotenv.parse(file)
    const shellOnly = ["HASH", "ESCAPED"]
    for (const { key, value } of expected)
      if (!shellOnly.includes(key)) expect([key, theirs[key]]).toEqual([key, value])
    expect([theirs.HASH, theirs.ESCAPED]).toEqual(["", "a\\\nb"])
  })

  it("names every line it cannot read, with its first line's number, and reads the rest", () => {
    const read = dotenvImport(
      ["A=1", "no equals here", "B='x' y", 'C="multi', 'line" z', "D=4", "E='never closed", "F=6"].join("\n"),
    )
    expect(read.entries).toEqual([
      { key: "A", value: "1", line: 1 },
      { key: "D", value: "4", line: 6 },
    ])
    expect(read.problems).toEqual([
      { line: 2, key: undefined, reason: "not a KEY=value line" },
      { line: 3, key: "B", reason: "unexpected text after the closing quote" },
      { line: 4, key: "C", reason: "unexpected text after the closing quote" },
      // An unclosed quote takes the rest of the text: F is part of what it holds.
      { line: 7, key: "E", reason: "the single quote is never closed" },
    ])
    expect(dotenvImport('A="x').problems).toEqual([{ line: 1, key: "A", reason: "the double quote is never closed" }])
  })

  it("numbers the lines after a value that spans several, and skips a byte order mark, comments and blanks", () => {
    const read = dotenvImport("\uFEFF# c\n\nA='1\n2\n3'\n   \nB=x\n")
    expect(read.entries).toEqual([
      { key: "A", value: "1\n2\n3", line: 3 },
      { key: "B", value: "x", line: 7 },
    ])
  })

  it("gives keys as written, for the naming rules to judge, and lists a key given twice twice", () => {
    expect(pairs("CLÉ=x\nbad key=2\n=3\nA=1\nA=2\n")).toEqual([
      { key: "CLÉ", value: "x" },
      { key: "bad key", value: "2" },
      { key: "", value: "3" },
      { key: "A", value: "1" },
      { key: "A", value: "2" },
    ])
  })
})
