/**
 * The JSON a person imports is read member by member, in the order written, each value as its own text: the
 * property test holds it to `JSON.parse` on any object, however it is spaced.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { jsonImportMembers } from "./jsonImport.js"

const texts = (json: string) =>
  jsonImportMembers(json).map(({ key, value }) =>
    value._tag === "Text" ? [key, value.value, value.converted] : [key, "refused", value.reason],
  )

describe("jsonImportMembers", () => {
  it("keeps a number's and true/false's text as written, and refuses null, arrays and objects", () => {
    expect(
      texts(
        '{\n  "PORT": 8080,\n  "DEBUG": true, "OFF":false,"RATIO": 1.50, "BIG": 12345678901234567890, ' +
          '"SMALL": -2.5e-3, "ZERO": -0, "NAME": "8080", "N": null, "A": [1, "]"], "O": {"e": "}"}}',
      ),
    ).toEqual([
      ["PORT", "8080", "number"],
      ["DEBUG", "true", "boolean"],
      ["OFF", "false", "boolean"],
      ["RATIO", "1.50", "number"],
      ["BIG", "12345678901234567890", "number"],
      ["SMALL", "-2.5e-3", "number"],
      ["ZERO", "-0", "number"],
      ["NAME", "8080", undefined],
      ["N", "refused", 'is null: write "" for an empty value'],
      ["A", "refused", "is an array: a value is a string, a number or true/false"],
      ["O", "refused", "is an object: a value is a string, a number or true/false"],
    ])
  })

  it("lists members in the order written, escapes decoded, a key given twice twice", () => {
    expect(texts('\uFEFF{"B": "1", "2": "two", "A\\u0042": "x\\"\\\\", "B": 3}')).toEqual([
      ["B", "1", undefined],
      ["2", "two", undefined],
      ["AB", 'x"\\', undefined],
      ["B", "3", "number"],
    ])
    expect(texts("{}")).toEqual([])
    expect(texts(" { } ")).toEqual([])
  })

  it("agrees with JSON.parse on every object, however it is spaced", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
        fc.constantFrom(undefined, 0, 1, 2, "\t"),
        (object, space) => {
          const json = JSON.stringify(object, null, space)
          const parsed = JSON.parse(json) as Record<string, unknown>
          const members = jsonImportMembers(json)
          expect(members.map((member) => member.key).sort()).toEqual(Object.keys(parsed).sort())
          for (const { key, value } of members) {
            const expected = parsed[key]
            if (value._tag === "Refused") {
              expect(expected === null || typeof expected === "object").toBe(true)
            } else if (value.converted === undefined) {
              expect(value.value).toBe(expected)
            } else {
              expect([JSON.parse(value.value), value.converted]).toEqual([expected, typeof expected])
            }
          }
        },
      ),
      { numRuns: 500 },
    )
  })
})
