/**
 * JSON from files that may hold secrets: what JSON.parse reads is read the same, and a mistake is reported by
 * line and column without quoting any of the text (V8's message quotes the text around it).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { parseSecretsFile } from "./dotenvFile.js"
import { parseJsonText } from "./jsonText.js"
import { readUserConfig } from "./settingsFiles.js"

const EXPECTED_VALUE = "expected a value (a string in double quotes, a number, an object…)"

const mistake = (text: string) => {
  const parsed = parseJsonText(text)
  return Result.isFailure(parsed) ? parsed.failure : "parsed"
}

describe("parseJsonText", () => {
  it("reads whatever JSON.parse reads", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined)
        expect(parseJsonText(text)).toEqual(Result.succeed(JSON.parse(text)))
      }),
    )
  })

  it("says where the text stops being JSON, and why, quoting none of it", () => {
    expect(mistake('{"DB_PASSWORD": s3cr3t-hunter2-value}')).toBe(
      `not valid JSON at line 1, column 17: ${EXPECTED_VALUE}`,
    )
    expect(mistake('{\n  "A": "x",\n  "B": "y"\n  "C": "z"\n}')).toBe(
      "not valid JSON at line 4, column 3: expected ',' or '}'",
    )
    expect(mistake('{"A": "unterminated')).toBe("not valid JSON at line 1, column 20: a string is never closed")
    expect(mistake('{"A": "tab\there"}')).toContain("line 1, column 11: a line break or control character")
    expect(mistake('{"A": "x"} trailing-secret')).toBe(
      "not valid JSON at line 1, column 12: unexpected text after the value",
    )
    expect(mistake('{"A": "\\q"}')).toContain("column 8: an unknown escape")
    expect(mistake("")).toBe("not valid JSON at line 1, column 1: the text ends where a value should be")
  })

  it("never echoes a value, whatever the mistake", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 12 }).filter((value) => /^[A-Za-z0-9]+$/.test(value)),
        (secret) => {
          for (const text of [`{"K": ${secret}}`, `{"K": "${secret}`, `{"K": "${secret}" x}`, `{${secret}}`]) {
            expect(mistake(text)).not.toContain(secret.slice(0, 6))
          }
        },
      ),
    )
  })
})

describe("files read as JSON", () => {
  it("push: a broken JSON file is named with the position, never a piece of a value", async () => {
    const failure = await Effect.runPromise(
      Effect.flip(parseSecretsFile("bad.json", '{"DB_PASSWORD": s3cr3t-hunter2-value}')),
    )
    expect(failure.message).toMatch(/^bad\.json: not valid JSON at line 1, column 17: /)
    expect(failure.message).not.toContain("s3cr3t")
  })

  it("the user's config file: a broken one is named with the position, never a piece of a token", async () => {
    const home = mkdtempSync(join(tmpdir(), "coffer-json-"))
    mkdirSync(join(home, "coffer"))
    writeFileSync(join(home, "coffer", "config.json"), '{"tokens": {"http://x": cfk_secrettokenvalue123}}\n')
    const failure = await Effect.runPromise(Effect.flip(readUserConfig({ XDG_CONFIG_HOME: home })))
    expect(failure.message).toBe(
      `${join(home, "coffer", "config.json")}: not valid JSON at line 1, column 25: ${EXPECTED_VALUE}`,
    )
  })
})
