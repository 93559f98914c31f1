import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { jsonHazard } from "./jsonHazards.js"

describe("jsonHazard", () => {
  it("finds a key given twice in one object, escaped or not, and says where", () => {
    expect(jsonHazard('{"a":1,"a":2}')).toBe("The request body gives a twice in one object: write each key once")
    expect(jsonHazard('{"content":{"x":[{"id":1},{"id":2,"n":1,"\\u006e":2}]}}')).toBe(
      "The request body gives content.x[1].n twice in one object: write each key once",
    )
    expect(jsonHazard('{"a b":{},"a b":1}')).toBe(
      'The request body gives "a b" twice in one object: write each key once',
    )
  })

  it("takes one key in sibling objects, keys equal to values, and braces and quotes inside strings", () => {
    for (const text of [
      '{"a":{"a":1},"b":{"a":2}}',
      '[{"a":1},{"a":1}]',
      '{"a":"a","b":"a"}',
      '{"a":"}{\\"a\\":1,","b":"[\\"a\\"]"}',
      '{"":1,"x":""}',
    ]) {
      expect(jsonHazard(text), text).toBeUndefined()
    }
  })

  it("finds integers beyond 2^53 and numbers beyond a double, and takes every number JavaScript keeps", () => {
    expect(jsonHazard('{"content":{"accountId":9007199254740993}}')).toBe(
      "The request body's content.accountId holds 9007199254740993, an integer JSON numbers do not keep exactly (beyond ±9007199254740991): write it as a string",
    )
    expect(jsonHazard('{"f":[1.5e400]}')).toBe(
      "The request body's f[0] holds 1.5e400, a number too large to keep: write it as a string",
    )
    expect(jsonHazard("-12345678901234567890")).toMatch(/^The request body is -12345678901234567890, an integer/)
    expect(jsonHazard("1".repeat(400))).toMatch(/^The request body is 1{40}…, a number too large to keep/)
    const kept = ["9007199254740991", "-9007199254740991", String(2 ** 60), "1152921504606846976", "1e300", "0.1"]
    for (const text of [...kept, "12345678901234567890.5", "1E2", "-0"]) {
      expect(jsonHazard(text), text).toBeUndefined()
    }
  })

  it("finds nothing in what JSON.stringify writes", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonHazard(JSON.stringify(value))).toBeUndefined()
        expect(jsonHazard(JSON.stringify(value, null, 2))).toBeUndefined()
      }),
    )
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        expect(jsonHazard(JSON.stringify({ value }))).toBeUndefined()
      }),
    )
  })
})
