/**
 * The `.env` reader of `push` and `import` is the inverse of the service's export: every value the export can
 * write reads back exactly (saved with CRLF line ends too), and malformed lines are refused with their line number.
 */
import { dotenvValue, toDotenv } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { parseDotenv, parseJsonObject } from "./dotenvFile.js"
import { toShell } from "./shellFormat.js"

const read = (text: string) => Effect.runSync(parseDotenv(text))
const failure = (text: string) => {
  const exit = Effect.runSyncExit(parseDotenv(text))
  return Exit.isFailure(exit) ? String(exit.cause) : "succeeded"
}

describe("parseDotenv", () => {
  it("reads back every value the service's export writes", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }).filter((value) => !value.includes("\0")),
        (value) => {
          expect(read(toDotenv([{ key: "K", value }]))).toEqual([{ key: "K", value }])
        },
      ),
      { numRuns: 500 },
    )
    expect(read(`A=${dotenvValue('it\'s $HOME "q" \\ `x`')}\n`)).toEqual([
      { key: "A", value: 'it\'s $HOME "q" \\ `x`' },
    ])
  })

  it("reads back every value `pull --format shell` writes, a single quote in it too", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }).filter((value) => !value.includes("\0")),
        (value) => {
          expect(read(toShell({ K: value }).text)).toEqual([{ key: "K", value }])
        },
      ),
      { numRuns: 500 },
    )
    expect(read(`SINGLE='it'\\''s $HOME'\n`)).toEqual([{ key: "SINGLE", value: "it's $HOME" }])
    // What no shell variable can hold is left out and named, as what no shell name can be.
    expect(toShell({ A: "1", "B.C": "2", D: "x\0y" })).toEqual({
      text: "export A='1'\n",
      skipped: ["B.C"],
      holdingNul: ["D"],
    })
  })

  it("reads one shell word as a value: parts side by side, a bare backslash before a blank or quote, not before a letter", () => {
    expect(read("A='x'\"y\"z\nB=a\\ b\nC=C:\\Users\\me\nD=\\'q\\' # note\nE=$HOME/x\n")).toEqual([
      { key: "A", value: "xyz" },
      { key: "B", value: "a b" },
      { key: "C", value: "C:\\Users\\me" },
      { key: "D", value: "'q'" },
      { key: "E", value: "$HOME/x" },
    ])
    expect(failure("A='x' y\n")).toContain("line 1: unexpected text after the value of A")
  })

  it("reads an export saved with CRLF line ends (Windows, git's autocrlf) back exactly, line breaks in values too", () => {
    const binary = fc.string({ unit: "binary" }).filter((value) => !value.includes("\0"))
    fc.assert(
      fc.property(fc.array(binary, { minLength: 1, maxLength: 4 }), (values) => {
        const entries = values.map((value, index) => ({ key: `K${index}`, value }))
        expect(read(toDotenv(entries).replaceAll("\n", "\r\n"))).toEqual(entries)
      }),
      { numRuns: 500 },
    )
    expect(read("A='line1\r\nline2'\r\nB=\"x\r\ny\"\r\n")).toEqual([
      { key: "A", value: "line1\nline2" },
      { key: "B", value: "x\ny" },
    ])
  })

  it("skips comments and blank lines, takes `export`, ends bare values at a space, keeps a shell's backslashes", () => {
    expect(read("# c\n\nexport A=1 # note\nB=\nC='x y'\nD=\"a\\nb\"\r\nE.F-G=v\n")).toEqual([
      { key: "A", value: "1" },
      { key: "B", value: "" },
      { key: "C", value: "x y" },
      { key: "D", value: "a\\nb" },
      { key: "E.F-G", value: "v" },
    ])
  })

  it("names the line of a malformed entry", () => {
    expect(failure("A=1\nnot an entry\n")).toContain("line 2")
    expect(failure("A='open\nB=2\n")).toContain("never closed")
    expect(failure('A="x" trailing\n')).toContain("unexpected text")
    // What the `dotenv` package accepts and a shell does not, with how to write it.
    expect(failure("A=1\nB=a b c\n")).toContain(
      "line 2: unexpected text after the value of B (quote a value that holds spaces: B='…')",
    )
    expect(failure("C = v\n")).toContain(
      "line 1: unexpected text after the value of C (write KEY=value, with no space after =)",
    )
    // A key the service refuses is named with its reason, not as a line that is no entry at all.
    expect(failure("A=1\nCLÉ=x\n")).toMatch(/line 2: .*É/)
    expect(failure("A=1\nexport MY KEY=x\n")).toMatch(/line 2: .*" "/)
    expect(failure("A=1\nnot an entry\n")).toContain("line 2: expected KEY=value")
  })

  it("reads a JSON object in the order written, numbers and true/false as their text, and refuses anything else", () => {
    const readJson = (text: string) => Effect.runSync(parseJsonObject(text))
    const jsonFailure = (text: string) => {
      const exit = Effect.runSyncExit(parseJsonObject(text))
      return Exit.isFailure(exit) ? String(exit.cause) : "succeeded"
    }
    expect(readJson('{"B":"1","A":"","2":"two"}')).toEqual([
      { key: "B", value: "1" },
      { key: "A", value: "" },
      { key: "2", value: "two" },
    ])
    expect(readJson('{"PORT": 8080, "RATIO": 1.50, "BIG": 12345678901234567890, "DEBUG": true}')).toEqual([
      { key: "PORT", value: "8080" },
      { key: "RATIO", value: "1.50" },
      { key: "BIG", value: "12345678901234567890" },
      { key: "DEBUG", value: "true" },
    ])
    expect(jsonFailure('{"A":"1","B":null}')).toContain('the value of B is null: write "" for an empty value')
    expect(jsonFailure('{"C":[1]}')).toContain("the value of C is an array")
    expect(jsonFailure('{"D":{"e":"f"}}')).toContain("the value of D is an object")
    expect(jsonFailure("[]")).toContain("expected a JSON object")
  })
})
