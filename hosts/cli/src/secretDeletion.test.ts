import { describe, expect, it } from "vitest"
import { checkDeletion, stoppedReport, uniqueKeys } from "./secretDeletion.js"

describe("the keys secrets delete is given", () => {
  it("counts a key given twice once, in the order first given", () => {
    expect(uniqueKeys(["B", "A", "B", "C", "A"])).toEqual(["B", "A", "C"])
    expect(uniqueKeys(["A"])).toEqual(["A"])
  })

  it("refuses names the rules refuse, then keys the environment does not hold, and lets held keys through", () => {
    const held = new Set(["A", "B", "old key"])
    expect(checkDeletion(["A", "B"], held)).toEqual({ invalid: [], missing: [] })
    expect(checkDeletion(["A", "MISSING", "ALSO_MISSING"], held)).toEqual({
      invalid: [],
      missing: ["MISSING", "ALSO_MISSING"],
    })
    const bad = checkDeletion(["A=1", "MISSING", "", "..", "x".repeat(257)], held)
    expect(bad.missing).toEqual(["MISSING"])
    expect(bad.invalid.map((item) => item.key)).toEqual(["A=1", "", "..", "x".repeat(257)])
    expect(bad.invalid[0]?.reason).toBe(
      'Secret key may contain only letters A-Z and a-z, digits, "_", "-" and "."; found "="',
    )
    expect(bad.invalid[1]?.reason).toBe("Secret key must not be empty")
    // A key stored by an earlier implementation under a name the rules no longer allow can still be deleted.
    expect(checkDeletion(["old key"], held)).toEqual({ invalid: [], missing: [] })
  })
})

describe("the report of deletions that stopped midway", () => {
  it("names what was deleted and what was not", () => {
    expect(
      stoppedReport({ deleted: ["A", "B"], failedOn: "C", rest: ["D"], reason: "Forbidden", answered: true }),
    ).toBe("C: Forbidden; deleted: A, B; not deleted: C, D")
    expect(stoppedReport({ deleted: ["A"], failedOn: "B", rest: [], reason: "gone", answered: true })).toBe(
      "B: gone; deleted: A; not deleted: B",
    )
  })

  it("says nothing was deleted when it stopped on the first key", () => {
    expect(stoppedReport({ deleted: [], failedOn: "A", rest: ["B"], reason: "Forbidden", answered: true })).toBe(
      "A: Forbidden; nothing was deleted",
    )
  })

  it("does not count a key whose request got no answer as deleted or as not deleted", () => {
    const reason = "cannot reach http://127.0.0.1:1: ECONNRESET"
    expect(stoppedReport({ deleted: ["A"], failedOn: "B", rest: ["C"], reason, answered: false })).toBe(
      `B: ${reason}; deleted: A; B may or may not be deleted (secrets list shows it); not deleted: C`,
    )
    expect(stoppedReport({ deleted: [], failedOn: "A", rest: [], reason, answered: false })).toBe(
      `A: ${reason}; A may or may not be deleted (secrets list shows it)`,
    )
  })
})
