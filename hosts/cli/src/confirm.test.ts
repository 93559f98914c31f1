import { describe, expect, it } from "vitest"
import { confirmation, deleteQuestion, describeKeys, isYes } from "./confirm.js"

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

  it("names the key, or counts and names several, and says where they live", () => {
    expect(deleteQuestion(["OLD_TOKEN"], "app/staging")).toBe("Delete OLD_TOKEN from app/staging? [y/N] ")
    expect(deleteQuestion(["A", "B"], "app/dev")).toBe("Delete 2 secrets (A, B) from app/dev? [y/N] ")
    expect(deleteQuestion(["A", "B", "C", "D", "E"], "acme/production")).toBe(
      "Delete 5 secrets (A, B, C, D, E) from acme/production? [y/N] ",
    )
  })

  it("shortens a long list to its first four keys and a count of the rest, never to 'and 1 more'", () => {
    expect(describeKeys(["A", "B", "C", "D", "E", "F"])).toBe("6 secrets (A, B, C, D and 2 more)")
    const many = Array.from({ length: 40 }, (_, i) => `KEY_${i}`)
    expect(describeKeys(many)).toBe("40 secrets (KEY_0, KEY_1, KEY_2, KEY_3 and 36 more)")
  })
})
