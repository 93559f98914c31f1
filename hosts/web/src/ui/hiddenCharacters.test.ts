import { describe, expect, it } from "vitest"
import { hiddenCharacters } from "./hiddenCharacters.js"

describe("hiddenCharacters", () => {
  it("names each character that hides or reorders text once, in the order it first appears", () => {
    expect(hiddenCharacters("\u202Eevil\u2066x\u202E\u200B\uFEFF")).toEqual(["U+202E", "U+2066", "U+200B", "U+FEFF"])
    expect(hiddenCharacters("\u061Ca\u200E\u200F\u202A\u2069")).toEqual([
      "U+061C",
      "U+200E",
      "U+200F",
      "U+202A",
      "U+2069",
    ])
  })

  it("finds none in text a reader sees as it is: letters of any script, emoji with joiners, line breaks", () => {
    for (const value of ["postgres://u:p@db/x", "שלום עולם", "👩‍💻 \u00e9\n\ttab", ""]) {
      expect(hiddenCharacters(value)).toEqual([])
    }
  })
})
