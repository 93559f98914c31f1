import * as Option from "effect/Option"
import { describe, expect, it } from "vitest"
import { decodeOnce } from "./decodeOnce.js"

/** A decoder that counts its calls and refuses texts that are not numbers. */
const counting = () => {
  const calls: Array<string> = []
  const decode = decodeOnce((text: string) => {
    calls.push(text)
    const value = Number(text)
    return Number.isNaN(value) ? Option.none() : Option.some({ value })
  })
  return { calls, decode }
}

describe("decodeOnce", () => {
  it("decodes a text once and answers the same value after", () => {
    const { calls, decode } = counting()
    const first = decode("1", 10)
    expect(first).toEqual({ value: 1 })
    expect(decode("1", 10)).toBe(first)
    expect(calls).toEqual(["1"])
  })

  it("remembers nothing of a text it refuses", () => {
    const { calls, decode } = counting()
    expect(decode("x", 10)).toBeUndefined()
    expect(decode("x", 10)).toBeUndefined()
    expect(calls).toEqual(["x", "x"])
  })

  it("keeps at most the bound in force, the oldest text leaving first", () => {
    const { calls, decode } = counting()
    for (const text of ["1", "2", "3"]) decode(text, 2)
    decode("3", 2)
    decode("2", 2)
    decode("1", 2)
    expect(calls).toEqual(["1", "2", "3", "1"])
    // A smaller bound takes effect at the next text added.
    decode("4", 1)
    decode("1", 1)
    expect(calls).toEqual(["1", "2", "3", "1", "4", "1"])
  })
})
