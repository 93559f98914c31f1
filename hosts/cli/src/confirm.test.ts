import { describe, expect, it } from "vitest"
import { confirmation, deleteQuestion, isYes } from "./confirm.js"

describe("confirming a deletion", () => {
  it("goes on with --yes, asks on a terminal, and refuses where nobody can answer", () => {
    expect(confirmation({ yes: true, interactive: true })).toBe("proceed")
    expect(confirmation({ yes: true, interactive: false })).toBe("proceed")
    expect(confirmation({ yes: false, interactive: true })).toBe("ask")
    expect(confirmation({ yes: false, interactive: false })).toBe("refuse")
  })

  it("takes y or yes, in any case, as yes; anything else, Enter alone included, as no", () => {
    for (const answer of ["y", "Y", "yes", "YES", " yes ", "y\r"]) expect(isYes(answer), answer).toBe(true)
    for (const answer of ["", "n", "no", "N", "yep", "ye", "y y", "oui"]) expect(isYes(answer), answer).toBe(false)
  })

  it("names every key and where it lives", () => {
    expect(deleteQuestion(["OLD_TOKEN"], "app/staging")).toBe("Delete OLD_TOKEN from app/staging? [y/N] ")
    expect(deleteQuestion(["A", "B"], "app/dev")).toBe("Delete A, B from app/dev? [y/N] ")
  })
})
