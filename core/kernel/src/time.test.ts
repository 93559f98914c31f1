import { describe, expect, it } from "vitest"
import { fromIso, fromIsoOrNull, toIso, toIsoOrNull } from "./time.js"

describe("time at the ports", () => {
  it("writes ISO 8601 UTC with milliseconds, as HTTP answers and SQL text columns hold it", () => {
    expect(toIso(Date.UTC(2026, 0, 31, 12, 0, 0, 7))).toBe("2026-01-31T12:00:00.007Z")
    expect(toIso(0)).toBe("1970-01-01T00:00:00.000Z")
  })

  it("reads back the same instant, so a stored text and the port's milliseconds agree", () => {
    for (const millis of [0, 1, Date.UTC(2026, 0, 31, 12, 0, 0, 999), Date.UTC(9999, 11, 31)]) {
      expect(fromIso(toIso(millis))).toBe(millis)
    }
  })

  it("keeps the order of instants in the order of their texts", () => {
    const instants = [Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1, 0, 0, 0, 1), Date.UTC(2026, 9, 1)]
    const texts = instants.map(toIso)
    expect([...texts].sort()).toEqual(texts)
  })

  it("passes an absent instant through as null", () => {
    expect(toIsoOrNull(null)).toBeNull()
    expect(fromIsoOrNull(null)).toBeNull()
    expect(toIsoOrNull(86_400_000)).toBe("1970-01-02T00:00:00.000Z")
    expect(fromIsoOrNull("1970-01-02T00:00:00.000Z")).toBe(86_400_000)
  })
})
