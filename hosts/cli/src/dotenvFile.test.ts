/**
 * The `.env` reader of `push` and `import` (`dotenvImport` of `@coffer/secrets`, whose own tests cover its dialect)
 * as the command line uses it: every value the export and `pull --format shell` write reads back exactly, and the
 * first line that cannot be read, or whose key the service would refuse, stops the read with its number.
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

  it("reads the dotenv package's files too: blanks around =, spaces in a bare value, \\n in double quotes", () => {
    expect(read('export A = 1 # note\nB=a b c\nC="x\\ny"\n')).toEqual([
      { key: "A", value: "1" },
      { key: "B", value: "a b c" },
      { key: "C", value: "x\ny" },
    ])
  })

  it("reads a file saved with CR line ends (classic Mac OS), or CRLF, one line per line", () => {
    expect(read("A=1\rB=two words\r# note\rC='x'\r")).toEqual([
      { key: "A", value: "1" },
      { key: "B", value: "two words" },
      { key: "C", value: "x" },
    ])
    expect(read("A=1\r\nB=2\rC=3\n")).toEqual([
      { key: "A", value: "1" },
      { key: "B", value: "2" },
      { key: "C", value: "3" },
    ])
    expect(failure("A=1\r\rnot an entry\r")).toContain("line 3: not a KEY=value line")
  })

  it("stops at the first line it cannot read, or whose key the service would refuse, naming it", () => {
    expect(failure("A=1\nnot an entry\n")).toContain("line 2: not a KEY=value line")
    expect(failure("A='open\nB=2\n")).toContain("line 1: the single quote is never closed")
    expect(failure('A=1\nB="x" trailing\n')).toContain("line 2: unexpected text after the closing quote")
    // A key the service refuses is named with its reason, as `secrets set` names it, before anything is sent.
    expect(failure("A=1\nCLÉ=x\n")).toMatch(/line 2: Secret key may contain only .*É/)
    expect(failure("A=1\nexport MY KEY=x\n")).toMatch(/line 2: .*" "/)
    expect(failure(`A=1\n${"K".repeat(257)}=x\n`)).toContain("line 2: Secret key must be at most 256 characters")
    // The earliest line is named, whether its key or its syntax is wrong.
    expect(failure("A=1\n..=2\nB='open\n")).toContain('line 2: Secret key must not be "." or ".."')
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
